import type { FinishReason } from '../../core/finish-reason.js';

/** Every reason that means "the output (or an image in it) was blocked by a policy". */
const filteredReasons = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Maps a Gemini `finishReason` onto the canonical one. Gemini has no tool-use reason: a turn
 * that ends in function calls still says `STOP`, so the caller tells us whether it saw any.
 * `MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL` and the like become `other`: the model
 * did stop, and `error` is kept for failures of the gateway or the transport.
 * Values: https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'STOP') return hasToolCalls ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && filteredReasons.has(reason)) return 'content_filter';
  return 'other';
}
