import type { TextProviderApi } from '../config/types.js';
import type { TextRequest } from '../core/text-request.js';
import type { Candidate } from '../routing/candidate.js';
import { planGeminiPassThrough } from './plan-gemini-pass-through.js';
import { readSignatureTag } from './tag-signatures.js';

/**
 * The native pass-through (docs/api-decisions.md, "Native pass-through"): when the client's style
 * is the chosen endpoint's own protocol (Messages → anthropic, Chat Completions → openai, Gemini's
 * generateContent → gemini), the
 * client's body goes to the provider as it came, but for what the gateway must set, and the
 * provider's answer comes back in the style's official shape (the protocol's relay reads the
 * vendor's dialect), with the gateway's id, model and cost. The request
 * was decoded and checked as usual (field tables, routing, limits, reservation) all the same.
 *
 * A request is translated instead when, for the chosen endpoint, the gateway has to change more
 * than those fields: a top-level field that is not native to the protocol (a hint the gateway
 * does not forward, or a field it translates, such as `reasoning` on Chat Completions or
 * `output_format` on Messages); an assistant turn carrying the gateway's own reasoning fields
 * (Chat `reasoning_details`) or a signature tagged by another protocol; `cache_control` on Chat
 * Completions messages (OpenAI's API has none); or reasoning that routing made advisory for an
 * endpoint that does not reason. The decision is per candidate: a fallback of another protocol
 * is translated.
 */
export interface PassThroughPlan {
  body: Record<string, unknown>;
}

/**
 * What a client style hands generation for its pass-through (derived from its field table on
 * the api side, so that generation reads no api tables): the protocol whose wire the style is,
 * and which of its top-level fields may go to that protocol as they came.
 */
export interface PassThroughRules {
  protocol: TextProviderApi;
  /** Top-level fields that may be forwarded. */
  forwardable: ReadonlySet<string>;
  /** The gateway's own fields: read by the gateway, never sent to the provider. */
  gatewayOnly: readonly string[];
}

/** The client's body as it came, and its style's rules; absent when pass-through is off. */
export interface PassThroughInput {
  body: Record<string, unknown>;
  rules: PassThroughRules;
}

export function planPassThrough(input: PassThroughInput | undefined, candidate: Candidate, request: TextRequest): PassThroughPlan | undefined {
  if (!input) return undefined;
  const { body, rules } = input;
  if (candidate.provider.api !== rules.protocol || candidate.provider.passThrough === false) return undefined;
  // Gemini's conversation is `contents`, its fields in either of Google's spellings.
  if (rules.protocol === 'gemini') return planGeminiPassThrough(body, rules, candidate, request);
  for (const field in body) if (!rules.forwardable.has(field)) return undefined;
  if (request.reasoning && !candidate.endpoint.supportedParameters.includes('reasoning')) return undefined;
  const messages = rules.protocol === 'openai' ? chatMessagesForwardable(body.messages) : messagesWithOwnSignatures(body.messages, rules.protocol);
  if (messages === undefined) return undefined;

  const forwarded: Record<string, unknown> = {};
  for (const field in body) {
    if (rules.gatewayOnly.includes(field)) continue;
    forwarded[field] = body[field];
  }
  forwarded.model = candidate.endpoint.model;
  forwarded.messages = messages;
  // The cap (the client's, the endpoint's or what the funds allow) and the stream's usage are
  // set by the protocol's relay, in its own fields (providers/*/relay-*.ts).
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

/**
 * Signatures the gateway tagged with this protocol lose their tag (the provider issued them);
 * untagged ones go as they are; one tagged by another protocol means translation, which drops it.
 * Answers the messages (a copy only where a tag was removed), or undefined to translate.
 */
function messagesWithOwnSignatures(messages: unknown, protocol: TextProviderApi): unknown[] | undefined {
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
      if (tagged.api !== protocol) return undefined;
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
