import type { FinishReason } from '../../core/finish-reason.js';

/**
 * Anthropic `stop_reason` → canonical finish reason. The matched stop sequence itself travels
 * separately (`stop_sequence`). Values: https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons
 */
export function mapAnthropicFinishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    // The answer filled the model's context window: truncated, just like hitting max_tokens.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // `pause_turn` (a server-tool loop paused) and values added later.
      return 'other';
  }
}
