import type { StreamPart } from '../../core/stream-part.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { toUpstreamError } from '../shared/send-request.js';
import { toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { mapAnthropicStreamError } from './map-error.js';
import { mapAnthropicFinishReason } from './map-finish-reason.js';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-usage.js';
import type { AnthropicStreamEvent, AnthropicUsage } from './wire-types.js';

/**
 * Anthropic streaming events → canonical stream parts; the event flow is described at
 * https://platform.claude.com/docs/en/build-with-claude/streaming. The stream always ends with
 * exactly one `finish` (on `message_stop`) or `error` part. Events after it are read but
 * ignored, so that the body ends cleanly and its connection can go back to the pool; closing
 * this generator early closes `events` (and with it the upstream body).
 */
export async function* convertAnthropicStream(events: AsyncIterable<SseEvent>, options: StreamConverterOptions): AsyncGenerator<StreamPart> {
  const { providerId } = options;
  const handle = createEventHandler(options);
  const iterator = events[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (true) {
      let next: IteratorResult<SseEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (!ended) yield toErrorPart(toUpstreamError(providerId, error), options);
        return;
      }
      if (next.done) break;
      if (ended) continue;
      const part = handle(next.value);
      if (part === undefined) continue;
      ended = part.type === 'finish' || part.type === 'error';
      yield part;
    }
    if (!ended) {
      yield toErrorPart(createProtocolError(providerId, 'stream ended before message_stop'), options);
    }
  } finally {
    await iterator.return?.();
  }
}

interface ToolBlock {
  /** The canonical tool-call index: tool blocks only, in the order they start. */
  toolIndex: number;
  hasArguments: boolean;
}

/** Per-stream state lives in this closure; each event yields at most one part. */
function createEventHandler(options: StreamConverterOptions): (event: SseEvent) => StreamPart | undefined {
  const { providerId } = options;
  const toolBlocks = new Map<number, ToolBlock>();
  let usage: AnthropicUsage = {};
  let stopReason: string | null | undefined;
  let stopSequence: string | null | undefined;

  return (event) => {
    let data: AnthropicStreamEvent;
    try {
      data = JSON.parse(event.data) as AnthropicStreamEvent;
    } catch {
      return toErrorPart(createProtocolError(providerId, 'sent malformed stream data', event.data), options);
    }
    switch (data.type ?? event.event) {
      case 'message_start':
        usage = mergeAnthropicUsage(usage, data.message?.usage);
        return { type: 'start', providerResponseId: data.message?.id, providerModel: data.message?.model };
      case 'content_block_start': {
        const block = data.content_block;
        if (block?.type === 'tool_use') {
          const toolIndex = toolBlocks.size;
          toolBlocks.set(data.index ?? -1, { toolIndex, hasArguments: false });
          return { type: 'tool-call-start', index: toolIndex, id: block.id ?? '', name: block.name ?? '' };
        }
        // Starts normally carry empty text; keep whatever a block opens with.
        if (block?.type === 'text' && block.text) return { type: 'text-delta', text: block.text };
        if (block?.type === 'thinking' && block.thinking) return { type: 'reasoning-delta', text: block.thinking };
        // `redacted_thinking` has no canonical stream part yet; server-tool blocks are not requested.
        return undefined;
      }
      case 'content_block_delta': {
        const delta = data.delta;
        if (delta?.type === 'text_delta' && delta.text) return { type: 'text-delta', text: delta.text };
        if (delta?.type === 'thinking_delta' && delta.thinking) return { type: 'reasoning-delta', text: delta.thinking };
        if (delta?.type === 'signature_delta' && delta.signature) return { type: 'reasoning-signature', signature: delta.signature };
        const tool = toolBlocks.get(data.index ?? -1);
        if (delta?.type === 'input_json_delta' && tool && delta.partial_json) {
          tool.hasArguments = true;
          return { type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: delta.partial_json };
        }
        return undefined;
      }
      case 'content_block_stop': {
        // A call without arguments streams no JSON at all; send `{}` so that clients can parse it.
        const tool = toolBlocks.get(data.index ?? -1);
        if (tool && !tool.hasArguments) {
          tool.hasArguments = true;
          return { type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: '{}' };
        }
        return undefined;
      }
      case 'message_delta':
        stopReason = data.delta?.stop_reason ?? stopReason;
        stopSequence = data.delta?.stop_sequence ?? stopSequence;
        usage = mergeAnthropicUsage(usage, data.usage);
        return undefined;
      case 'message_stop':
        return {
          type: 'finish',
          finishReason: mapAnthropicFinishReason(stopReason),
          ...(typeof stopSequence === 'string' && { stopSequence }),
          usage: mapAnthropicUsage(usage),
        };
      case 'error':
        return toErrorPart(mapAnthropicStreamError(providerId, data.error, event.data), options);
      default:
        // `ping`, and event types added after this was written.
        return undefined;
    }
  };
}
