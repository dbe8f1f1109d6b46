import type { FinishReason } from '../../core/finish-reason.js';

/**
 * Chat Completions `finish_reason` → canonical. `function_call` is the pre-tools name for a tool
 * call (https://platform.openai.com/docs/api-reference/chat/object); anything unknown
 * (compatible servers invent their own, e.g. `eos`, `abort`) is `other`.
 */
export function mapFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}
