/** The gateway's token estimate for texts Cohere counted none of: one per 3 UTF-8 bytes, as `billing/estimate-tokens.ts` does. */
export function estimateCohereTokens(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text);
  return Math.ceil(bytes / 3);
}
