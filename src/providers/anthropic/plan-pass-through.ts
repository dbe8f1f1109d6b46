import type { PassThroughPlan, PassThroughRules } from '../../core/pass-through.js';
import { readSignatureTag } from '../../core/signature-tag.js';
import { forwardsEveryField, pickForwardedFields } from '../shared/pick-forwarded-fields.js';

/**
 * The Messages pass-through of the `anthropic` protocol (`generation/plan-pass-through.ts` says
 * when one is tried): the client's body goes as it came but for the gateway's own fields and
 * `model`, and thinking signatures the gateway tagged as Anthropic's, which lose their tag.
 * Translated instead when a signature was tagged by another protocol (translation drops it). The
 * cap is set by the relay (`relay-messages.ts`).
 */
export function planMessagesPassThrough(body: Record<string, unknown>, rules: PassThroughRules, model: string): PassThroughPlan | undefined {
  if (!forwardsEveryField(body, rules)) return undefined;
  const messages = messagesWithOwnSignatures(body.messages);
  if (messages === undefined) return undefined;
  const forwarded = pickForwardedFields(body, rules);
  forwarded.model = model;
  forwarded.messages = messages;
  return { body: forwarded };
}

/**
 * Signatures the gateway tagged with this protocol lose their tag (the provider issued them);
 * untagged ones go as they are; one tagged by another protocol means translation, which drops it.
 * Answers the messages (a copy only where a tag was removed), or undefined to translate.
 */
function messagesWithOwnSignatures(messages: unknown): unknown[] | undefined {
  if (!Array.isArray(messages)) return undefined;
  let copied: unknown[] | undefined;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as { role?: unknown; content?: unknown };
    if (message?.role !== 'assistant' || !Array.isArray(message.content)) continue;
    let content: unknown[] | undefined;
    for (let at = 0; at < message.content.length; at += 1) {
      const block = message.content[at] as { type?: unknown; signature?: unknown };
      if (block?.type !== 'thinking' || typeof block.signature !== 'string') continue;
      const tagged = readSignatureTag(block.signature);
      if (!tagged) continue;
      if (tagged.api !== 'anthropic') return undefined;
      content ??= [...message.content];
      content[at] = { ...block, signature: tagged.signature };
    }
    if (content) {
      copied ??= [...messages];
      copied[index] = { ...message, content };
    }
  }
  return copied ?? messages;
}
