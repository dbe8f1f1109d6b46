import type { FinishReason } from '../../core/finish-reason.js';

/**
 * Converse `stopReason` → canonical finish reason. Values:
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 * A guardrail or content filter that stopped the answer is a finish reason, not an error.
 */
export function mapConverseFinishReason(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    // The answer filled the model's context window: cut short, as at max_tokens.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      // `malformed_model_output`, `malformed_tool_use`, and values added later.
      return 'other';
  }
}

/** The stop sequence that matched, where the model reports it (Claude, in its own response fields). */
export function readStopSequence(fields: Record<string, unknown> | undefined): string | undefined {
  if (!fields) return undefined;
  const delta = fields.delta as { stop_sequence?: unknown } | undefined;
  const value = fields.stop_sequence ?? (typeof delta === 'object' && delta !== null ? delta.stop_sequence : undefined);
  return typeof value === 'string' ? value : undefined;
}
