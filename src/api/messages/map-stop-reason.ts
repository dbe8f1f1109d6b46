import type { FinishReason } from '../../core/finish-reason.js';

import type { MessagesStopReason } from '../../wire/anthropic/wire-types.js';

export type StopReason = Exclude<MessagesStopReason, 'pause_turn'>;

/**
 * Canonical finish reason → Anthropic `stop_reason`. A matched stop sequence is `stop_sequence`
 * only when the provider said which one (Anthropic clients read `stop_sequence` alongside it).
 * `error` and `other` have no Anthropic name and end the turn as `end_turn`.
 */
export function mapStopReason(reason: FinishReason, stopSequence: string | undefined): StopReason {
  switch (reason) {
    case 'stop':
      return stopSequence === undefined ? 'end_turn' : 'stop_sequence';
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}
