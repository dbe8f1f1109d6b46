import type { PassThroughPlan, PassThroughRules } from '../../core/pass-through.js';
import { forwardsEveryField, pickForwardedFields } from '../shared/pick-forwarded-fields.js';

/**
 * The Chat Completions pass-through of the `openai` protocol (`generation/plan-pass-through.ts`
 * says when one is tried): the client's body goes as it came but for the gateway's own fields and
 * `model`. Translated instead when a message carries the gateway's own reasoning fields
 * (`reasoning_details`, `reasoning`) or `cache_control` (OpenAI's API has none). The cap and the
 * stream's usage are set by the relay (`relay-chat-completions.ts`).
 */
export function planChatCompletionsPassThrough(body: Record<string, unknown>, rules: PassThroughRules, model: string): PassThroughPlan | undefined {
  if (!forwardsEveryField(body, rules)) return undefined;
  const messages = chatMessagesForwardable(body.messages);
  if (messages === undefined) return undefined;
  const forwarded = pickForwardedFields(body, rules);
  forwarded.model = model;
  forwarded.messages = messages;
  return { body: forwarded };
}

/** The messages as they are, or undefined when one carries what only the gateway reads. */
function chatMessagesForwardable(messages: unknown): unknown[] | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) return undefined;
    if ('reasoning_details' in message || 'reasoning' in message || 'cache_control' in message) return undefined;
    const content = (message as { content?: unknown }).content;
    if (Array.isArray(content) && content.some((part) => typeof part === 'object' && part !== null && 'cache_control' in part)) return undefined;
  }
  return messages;
}
