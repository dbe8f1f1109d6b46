import type { FieldTable, WireProtocol } from '../api/shared/field-table.js';
import { chatCompletionsFieldTable } from '../api/chat-completions/field-table.js';
import { messagesFieldTable } from '../api/messages/field-table.js';
import { geminiFieldTable } from '../api/gemini/field-table.js';
import { readCamelCase } from '../api/gemini/read-camel-case.js';
import { planGeminiPassThrough } from './plan-gemini-pass-through.js';
import type { TextRequest } from '../core/text-request.js';
import type { Candidate } from '../routing/candidate.js';
import { readSignatureTag } from './tag-signatures.js';

/**
 * The native pass-through (docs/api-decisions.md, "Native pass-through"): when the client's style
 * is the chosen endpoint's own protocol (Messages → anthropic, Chat Completions → openai), the
 * client's body goes to the provider as it came, but for what the gateway must set, and the
 * provider's answer comes back as it came, but for the gateway's id, model and cost. The request
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

interface StyleRules {
  protocol: WireProtocol;
  /** Top-level fields that may be forwarded, derived from the style's field table. */
  forwardable: ReadonlySet<string>;
  /** The gateway's own fields: read by the gateway, never sent to the provider. */
  gatewayOnly: readonly string[];
}

/** Fields the pass-through itself sets or that carry the conversation as the protocol defines it. */
const structural = ['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens'];

function rulesOf(table: FieldTable, protocol: WireProtocol, gatewayOnly: string[]): StyleRules {
  const forwardable = new Set<string>([...structural, ...gatewayOnly]);
  for (const row of table) {
    if (row.field.includes('.')) continue;
    const kind = row.handling[protocol].kind;
    // A refused field got past the decoder only at its neutral value, which the provider takes too.
    if (kind === 'native' || kind === 'refused') forwardable.add(row.field);
  }
  return { protocol, forwardable, gatewayOnly };
}

let rulesByStyle: Record<'chat' | 'messages', StyleRules> | undefined;

function styleRules(api: 'chat' | 'messages'): StyleRules {
  rulesByStyle ??= {
    chat: rulesOf(chatCompletionsFieldTable, 'openai', ['models', 'provider', 'usage']),
    messages: rulesOf(messagesFieldTable, 'anthropic', ['models', 'provider']),
  };
  return rulesByStyle[api];
}

export function planPassThrough(
  api: 'chat' | 'responses' | 'messages' | 'gemini',
  body: Record<string, unknown> | undefined,
  candidate: Candidate,
  request: TextRequest,
): PassThroughPlan | undefined {
  if (!body || api === 'responses') return undefined;
  if (api === 'gemini') return planGeminiPassThrough(geminiFieldTable, readCamelCase(body), candidate, request);
  const rules = styleRules(api);
  if (candidate.provider.api !== rules.protocol || candidate.provider.passThrough === false) return undefined;
  for (const field in body) if (!rules.forwardable.has(field)) return undefined;
  if (request.reasoning && !candidate.endpoint.supportedParameters.includes('reasoning')) return undefined;
  const messages = api === 'chat' ? chatMessagesForwardable(body.messages) : messagesWithOwnSignatures(body.messages, rules.protocol);
  if (messages === undefined) return undefined;

  const forwarded: Record<string, unknown> = {};
  for (const field in body) {
    if (rules.gatewayOnly.includes(field)) continue;
    forwarded[field] = body[field];
  }
  forwarded.model = candidate.endpoint.model;
  forwarded.messages = messages;
  // Routing may have lowered the cap to the endpoint's (docs/api-decisions.md §4).
  if (request.maxTokens !== undefined) {
    if ('max_completion_tokens' in forwarded) forwarded.max_completion_tokens = request.maxTokens;
    else if ('max_tokens' in forwarded || api === 'messages') forwarded.max_tokens = request.maxTokens;
  }
  // The gateway reads usage from the stream to charge it.
  if (api === 'chat' && body.stream === true) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    forwarded.stream_options = { ...options, include_usage: true };
  }
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
function messagesWithOwnSignatures(messages: unknown, protocol: WireProtocol): unknown[] | undefined {
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
