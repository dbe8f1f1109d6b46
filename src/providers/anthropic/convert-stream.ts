import type { Citation } from '../../core/content.js';
import type { StreamPart } from '../../core/stream-part.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { driveEventHandler, toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { mapAnthropicCitation, mapAnthropicCitations, mapSearchResults } from './map-citation.js';
import { mapAnthropicStreamError } from './map-error.js';
import { mapAnthropicFinishReason } from './map-finish-reason.js';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-usage.js';
import type { AnthropicResponseBlock, AnthropicStopDetails, AnthropicStreamEvent, AnthropicUsage } from '../../wire/anthropic/wire-types.js';
import { asObjects } from '../shared/lenient-json.js';
import { withFields } from '../../core/with-fields.js';

/**
 * Anthropic streaming events → canonical stream parts; the event flow is described at
 * https://platform.claude.com/docs/en/build-with-claude/streaming. The stream always ends with
 * exactly one `finish` (on `message_stop`) or `error` part. Events after it are read but
 * ignored, so that the body ends cleanly and its connection can go back to the pool; closing
 * this generator early closes `events` (and with it the upstream body).
 */
export function convertAnthropicStream(events: AsyncIterable<SseEvent>, options: StreamConverterOptions): AsyncGenerator<StreamPart> {
  return driveEventHandler(events, createAnthropicEventHandler(options), () => toErrorPart(createProtocolError(options.providerId, 'stream ended before message_stop'), options), options);
}

interface ToolBlock {
  /** The canonical tool-call index: tool blocks only, in the order they start. */
  toolIndex: number;
  hasArguments: boolean;
}

/**
 * Per-stream state lives in this closure; each event yields the parts it carries. Besides the
 * usual `content_block_*` deltas, content may arrive whole: blocks (and even the stop reason)
 * inside `message_start`, or a tool's complete `input` in `content_block_start` (tool calls made
 * from code execution do both). A second `message_start` of the same message (proxies repeat it)
 * is folded; one of another message means two responses were spliced into one body, which no
 * client could read as one message: the stream fails.
 */
export function createAnthropicEventHandler(options: StreamConverterOptions): (event: SseEvent) => StreamPart[] {
  const { providerId } = options;
  const toolBlocks = new Map<number, ToolBlock>();
  /** The text block being streamed: its length so far and the citations it collected. */
  let textBlock: { index: number; length: number; citations: Citation[] } | undefined;
  /** Pages web search found, reported at the end for those no text cited. */
  const searchResults: unknown[] = [];
  const citedUrls = new Set<string>();
  let started = false;
  let messageId: string | undefined;
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let stopSequence: string | null | undefined;
  let stopDetails: AnthropicStopDetails | null | undefined;

  const startTool = (blockIndex: number, block: AnthropicResponseBlock): StreamPart[] => {
    const toolIndex = toolBlocks.size;
    const parts: StreamPart[] = [{ type: 'tool-call-start', index: toolIndex, id: block.id ?? '', name: block.name ?? '' }];
    const whole = isNonEmptyObject(block.input);
    toolBlocks.set(blockIndex, { toolIndex, hasArguments: whole });
    if (whole) parts.push({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: JSON.stringify(block.input) });
    return parts;
  };

  const openBlock = (blockIndex: number, block: AnthropicResponseBlock | undefined): StreamPart[] => {
    switch (block?.type) {
      case 'tool_use':
        return startTool(blockIndex, block);
      // Starts normally carry empty text; keep whatever a block opens with.
      case 'text':
        textBlock = { index: blockIndex, length: block.text?.length ?? 0, citations: mapAnthropicCitations(block.citations) };
        return block.text ? [{ type: 'text-delta', text: block.text }] : [];
      case 'thinking': {
        const parts: StreamPart[] = block.thinking ? [{ type: 'reasoning-delta', text: block.thinking }] : [];
        if (block.signature) parts.push({ type: 'reasoning-signature', signature: block.signature });
        return parts;
      }
      case 'redacted_thinking':
        return typeof block.data === 'string' ? [{ type: 'reasoning-redacted', data: block.data }] : [];
      case 'web_search_tool_result':
        searchResults.push(block.content);
        return [];
      default:
        // Server-tool blocks are not requested.
        return [];
    }
  };

  /** A block that arrived whole (inside `message_start`) is opened and closed at once. */
  const wholeBlock = (blockIndex: number, block: AnthropicResponseBlock): StreamPart[] => [...openBlock(blockIndex, block), ...closeBlock(blockIndex)];

  const closeBlock = (blockIndex: number): StreamPart[] => {
    // A text block's citations cover its text, known in full only now.
    if (textBlock?.index === blockIndex) {
      const { length, citations } = textBlock;
      textBlock = undefined;
      for (const citation of citations) citedUrls.add(citation.url);
      return citations.map((citation) => ({ type: 'citation', citation, textLength: length }));
    }
    // A call without arguments streams no JSON at all; send `{}` so that clients can parse it.
    const tool = toolBlocks.get(blockIndex);
    if (!tool || tool.hasArguments) return [];
    tool.hasArguments = true;
    return [{ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: '{}' }];
  };

  const readStop = (source: { stop_reason?: string | null; stop_sequence?: string | null; stop_details?: AnthropicStopDetails | null } | undefined) => {
    stopReason = source?.stop_reason ?? stopReason;
    stopSequence = source?.stop_sequence ?? stopSequence;
    stopDetails = source?.stop_details ?? stopDetails;
  };

  return (event) => {
    let data: AnthropicStreamEvent;
    try {
      data = JSON.parse(event.data) as AnthropicStreamEvent;
    } catch {
      return [toErrorPart(createProtocolError(providerId, 'sent malformed stream data', event.data), options)];
    }
    switch (data.type ?? event.event) {
      case 'message_start': {
        if (started) {
          // The same message announced twice (seen from proxies in front of Anthropic) is folded.
          if (isRepeatedStart(data, messageId)) return [];
          return [toErrorPart(createProtocolError(providerId, 'sent a second message_start in one stream', event.data), options)];
        }
        started = true;
        messageId = data.message?.id;
        const message = data.message;
        usage = mergeAnthropicUsage(usage, message?.usage);
        readStop(message);
        const start: StreamPart = { type: 'start', providerResponseId: message?.id, providerModel: message?.model };
        // The input side is final from here on; output has not been counted yet.
        if (typeof message?.usage?.input_tokens === 'number' && message.usage.input_tokens > 0) {
          start.usage = withFields(mapAnthropicUsage(withFields(message.usage, { output_tokens_details: null })), { completionTokens: 0 });
        }
        const parts: StreamPart[] = [start];
        asObjects<AnthropicResponseBlock>(message?.content).forEach((block, index) => parts.push(...wholeBlock(-1 - index, block)));
        return parts;
      }
      case 'content_block_start':
        return openBlock(data.index ?? -1, data.content_block);
      case 'content_block_delta': {
        const delta = data.delta;
        if (delta?.type === 'text_delta' && delta.text) {
          if (textBlock) textBlock.length += delta.text.length;
          return [{ type: 'text-delta', text: delta.text }];
        }
        if (delta?.type === 'citations_delta') {
          const citation = mapAnthropicCitation(delta.citation);
          if (citation && textBlock) textBlock.citations.push(citation);
          return [];
        }
        if (delta?.type === 'thinking_delta' && delta.thinking) return [{ type: 'reasoning-delta', text: delta.thinking }];
        if (delta?.type === 'signature_delta' && delta.signature) return [{ type: 'reasoning-signature', signature: delta.signature }];
        const tool = toolBlocks.get(data.index ?? -1);
        if (delta?.type === 'input_json_delta' && tool && delta.partial_json) {
          tool.hasArguments = true;
          return [{ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: delta.partial_json }];
        }
        return [];
      }
      case 'content_block_stop':
        return closeBlock(data.index ?? -1);
      case 'message_delta':
        readStop(data.delta);
        usage = mergeAnthropicUsage(usage, data.usage);
        return [];
      case 'message_stop': {
        const finish: StreamPart = { type: 'finish', finishReason: mapAnthropicFinishReason(stopReason), usage: mapAnthropicUsage(usage) };
        if (typeof stopSequence === 'string') finish.stopSequence = stopSequence;
        if (stopDetails && typeof stopDetails.type === 'string') finish.stopDetails = { ...stopDetails, type: stopDetails.type };
        const sources = searchResults.flatMap((content) => mapSearchResults(content, citedUrls));
        return [...sources.map((citation): StreamPart => ({ type: 'citation', citation })), finish];
      }
      case 'error':
        return [toErrorPart(mapAnthropicStreamError(providerId, data.error, event.data), options)];
      default:
        // `ping`, and event types added after this was written.
        return [];
    }
  };
}

/** A `message_start` repeating the one that opened the stream: the same message id (or none on either). */
export function isRepeatedStart(data: AnthropicStreamEvent, openedId: string | undefined): boolean {
  return data.message?.id === openedId;
}

function isNonEmptyObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}
