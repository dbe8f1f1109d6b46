import { countTextTokens } from '../billing/count-tokens.js';
import type { ModerationRequest } from '../core/moderation-request.js';

/**
 * What an image counts as: OpenAI's moderation answer reports no usage, and no price per image
 * has been published (the moderation models are free), so an image is counted as OpenAI's
 * high-detail 1024×1024 image of the chat models (85 + 4 × 170 tokens).
 * https://platform.openai.com/docs/guides/images-vision#calculating-costs
 */
export const moderationImageTokens = 765;

/**
 * The most tokens a moderation can be charged for, known before the call: every token of the
 * o200k encoding is at least one UTF-8 byte, so a text's byte length bounds its count (the
 * counter's own fallback, a token per four bytes, stays under it too).
 */
export function moderationTokenCeiling(request: ModerationRequest): number {
  let tokens = 0;
  for (const input of request.inputs) tokens += input.type === 'text' ? Buffer.byteLength(input.text) : moderationImageTokens;
  return tokens;
}

/** The gateway's count of a moderation's input tokens (o200k_base, as `count-tokens.ts`), for an answer without usage. */
export async function countModerationTokens(request: ModerationRequest): Promise<number> {
  let tokens = 0;
  for (const input of request.inputs) tokens += input.type === 'text' ? await countTextTokens(input.text) : moderationImageTokens;
  return tokens;
}
