import type { AssistantContentPart } from '../../core/content.js';
import type { StopDetails } from '../../core/finish-reason.js';
import type { TextResult } from '../../core/text-result.js';
import type { ResponseMeta } from '../shared/text-call.js';
import type { MessagesContentBlock, MessagesResponse, MessagesUsage } from '../../wire/anthropic/wire-types.js';
import { encodeCitation } from './encode-citation.js';
import { encodeUsage } from './encode-usage.js';
import { encodeHostedCallBlocks } from './encode-hosted-call.js';
import { mapStopReason, type StopReason } from './map-stop-reason.js';

/** What `/v1/messages` answers: the wire's `Message`, always with the stop details and the usage. */
export type MessagesAnswer = MessagesResponse & { stop_reason: StopReason; stop_details: StopDetails | null; usage: MessagesUsage };

/** A complete result as Anthropic's `Message` object; `cost` is nano-USD. */
export function encodeMessagesResponse(result: TextResult, meta: ResponseMeta, cost: bigint): MessagesAnswer {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    // Server tools the gateway ran come before the text they informed, as Anthropic's do.
    content: [...(result.hostedCalls ?? []).flatMap(encodeHostedCallBlocks), ...result.content.map(encodeBlock)],
    stop_reason: mapStopReason(result.finishReason, result.stopSequence),
    stop_sequence: result.stopSequence ?? null,
    stop_details: result.stopDetails ?? null,
    usage: encodeUsage(result.usage, cost),
  };
}

function encodeBlock(part: AssistantContentPart): MessagesContentBlock {
  switch (part.type) {
    case 'text':
      return part.citations?.length ? { type: 'text', text: part.text, citations: part.citations.map(encodeCitation) } : { type: 'text', text: part.text };
    case 'reasoning':
      if (part.redactedData !== undefined) return { type: 'redacted_thinking', data: part.redactedData };
      // Reasoning from a provider that does not sign it gets an empty signature: the block keeps
      // Anthropic's shape, and an adapter can tell unsigned thinking apart when it is sent back.
      return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
    case 'tool-call':
      return { type: 'tool_use', id: part.id, name: part.name, input: parseToolInput(part.arguments) };
  }
}

/**
 * Anthropic sends tool input as a JSON object. Providers stream it as text: an empty text means
 * no arguments; text that is not JSON (a malformed model call) is passed on as the string, so the
 * client's tool validation reports it instead of the gateway hiding it.
 */
export function parseToolInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
