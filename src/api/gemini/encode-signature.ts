import { readSignatureTag, tagSignature } from '../../core/signature-tag.js';

/**
 * Signatures leave the gateway tagged with the protocol that issued them (`core/signature-tag.ts`,
 * `generation/tag-signatures.ts`), so that one never reaches a provider that would refuse it. In
 * the Gemini style a Gemini signature goes out as Gemini sent it, untagged: a Gemini client keeps
 * it, and may send the conversation to Google itself. So on the way in, an untagged signature is
 * Gemini's; a signature of another protocol (Claude's) stays tagged both ways.
 */
export function encodeGeminiSignature(signature: string): string {
  const tagged = readSignatureTag(signature);
  return tagged?.api === 'gemini' ? tagged.signature : signature;
}

/** A `thoughtSignature` the client sent back: tagged Gemini's when it carries no tag. */
export function readGeminiSignature(signature: string): string {
  return readSignatureTag(signature) ? signature : tagSignature('gemini', signature);
}

/** Whether a (tagged) signature is Gemini's: Gemini signs the part after its thinking, others their thinking itself. */
export function isGeminiSignature(signature: string): boolean {
  const tagged = readSignatureTag(signature);
  return tagged === undefined || tagged.api === 'gemini';
}
