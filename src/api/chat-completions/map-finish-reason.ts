import type { FinishReason } from '../../core/finish-reason.js';

/** OpenRouter's normalized set: OpenAI's four reasons plus `error`. */
export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

/** `other` (a provider reason with no OpenAI equivalent) ends the turn normally, as `stop`. */
export function mapFinishReason(reason: FinishReason): ChatFinishReason {
  return reason === 'other' ? 'stop' : reason;
}
