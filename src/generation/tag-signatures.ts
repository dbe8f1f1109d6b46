import type { ProviderApi } from '../config/types.js';
import { readSignatureTag, tagSignature } from '../core/signature-tag.js';
import type { AssistantContentPart } from '../core/content.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';

/**
 * Reasoning signatures are opaque tokens that only the protocol that issued them accepts back
 * (Anthropic answers 400 to a Gemini thought signature and the other way round). Signatures
 * leave the gateway tagged with their protocol, and on the way back in a signature reaches
 * only an adapter of the same protocol; for any other, the reasoning goes without it (each
 * adapter then drops or replays unsigned reasoning as its protocol allows). An untagged
 * signature (from a client that talked to the vendor directly before) is passed on as it is.
 * The tag's spelling is `core/signature-tag.ts`.
 */

export function tagResultSignatures(result: TextResult, api: ProviderApi): TextResult {
  if (!result.content.some((part) => part.type === 'reasoning' && part.signature)) return result;
  return {
    ...result,
    content: result.content.map((part) => (part.type === 'reasoning' && part.signature ? { ...part, signature: tagSignature(api, part.signature) } : part)),
  };
}

export function untagRequestSignatures(request: TextRequest, api: ProviderApi): TextRequest {
  const signed = request.messages.some((message) => message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning' && part.signature));
  if (!signed) return request;
  return {
    ...request,
    messages: request.messages.map((message) =>
      message.role === 'assistant' ? { ...message, content: message.content.map((part) => untagPart(part, api)) } : message,
    ),
  };
}

function untagPart(part: AssistantContentPart, api: ProviderApi): AssistantContentPart {
  if (part.type !== 'reasoning' || !part.signature) return part;
  const tagged = readSignatureTag(part.signature);
  if (!tagged) return part;
  if (tagged.api === api) return { ...part, signature: tagged.signature };
  const { signature: _dropped, ...unsigned } = part;
  return unsigned;
}
