import type { FinishReason } from '../../core/finish-reason.js';

/**
 * Canonical finish reasons → Gemini's `FinishReason`. Gemini has no tool-use reason (a turn that
 * ends in function calls says `STOP`), and a policy stop of any provider is `SAFETY` (the
 * gemini adapter reads every policy reason of Gemini's — `SAFETY`, `RECITATION`, `BLOCKLIST`, … —
 * as `content_filter`). https://ai.google.dev/api/generate-content#FinishReason
 */
const reasons: Record<FinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
};

export function mapFinishReason(reason: FinishReason): string {
  return reasons[reason];
}
