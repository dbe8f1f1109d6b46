import type { StreamPart } from '../../core/stream-part.js';
import { bedrockStreamException } from '../aws/bedrock-exception.js';
import type { EventStreamMessage } from '../aws/event-stream.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { asRecord } from '../shared/lenient-json.js';
import { driveEventHandler, toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { mapConverseFinishReason, readStopSequence } from './map-finish-reason.js';
import { mapConverseUsage } from './map-usage.js';
import type { ConverseStreamPayloads, ConverseUsage } from './wire-types.js';

/**
 * ConverseStream events → canonical stream parts:
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html#conversation-inference-call-response-converse-stream
 * `messageStop` carries the stop reason and `metadata` the usage; they come in either order, so
 * the `finish` part goes out once both are in, or when the body ends after `messageStop`. A stream
 * without `messageStop` ended early: an error.
 */
export function convertConverseStream(messages: AsyncIterable<EventStreamMessage>, options: StreamConverterOptions): AsyncGenerator<StreamPart> {
  const handle = createConverseEventHandler(options);
  return driveEventHandler(messages, (message) => handle.read(message), () => handle.end() ?? toErrorPart(createProtocolError(options.providerId, 'stream ended before messageStop'), options), options);
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

interface ToolBlock {
  toolIndex: number;
  hasArguments: boolean;
}

/** Per-stream state; `read` turns one message into the parts it carries, `end` closes a stream whose metadata never came. */
export function createConverseEventHandler(options: StreamConverterOptions): { read(message: EventStreamMessage): StreamPart[]; end(): StreamPart | undefined } {
  const { providerId } = options;
  const toolBlocks = new Map<number, ToolBlock>();
  let started = false;
  let stop: ConverseStreamPayloads['messageStop'] | undefined;
  let usage: ConverseUsage | undefined;

  const start = (): StreamPart[] => {
    if (started) return [];
    started = true;
    return [{ type: 'start' }];
  };
  const finish = (): StreamPart => {
    const stopSequence = readStopSequence(asRecord(stop?.additionalModelResponseFields));
    return { type: 'finish', finishReason: mapConverseFinishReason(stop?.stopReason), ...(stopSequence !== undefined && { stopSequence }), usage: mapConverseUsage(usage) };
  };
  const openTool = (blockIndex: number, toolUse: { toolUseId?: string; name?: string }): StreamPart[] => {
    const toolIndex = toolBlocks.size;
    toolBlocks.set(blockIndex, { toolIndex, hasArguments: false });
    return [{ type: 'tool-call-start', index: toolIndex, id: toolUse.toolUseId ?? '', name: toolUse.name ?? '' }];
  };

  const readEvent = (type: string | undefined, data: Record<string, unknown>): StreamPart[] => {
    switch (type) {
      case 'messageStart':
        return start();
      case 'contentBlockStart': {
        const event = data as ConverseStreamPayloads['contentBlockStart'];
        const toolUse = event.start?.toolUse;
        return toolUse ? [...start(), ...openTool(event.contentBlockIndex ?? -1, toolUse)] : start();
      }
      case 'contentBlockDelta': {
        const event = data as ConverseStreamPayloads['contentBlockDelta'];
        const delta = event.delta;
        const parts = start();
        if (typeof delta?.text === 'string' && delta.text !== '') parts.push({ type: 'text-delta', text: delta.text });
        const reasoning = delta?.reasoningContent;
        if (typeof reasoning?.text === 'string' && reasoning.text !== '') parts.push({ type: 'reasoning-delta', text: reasoning.text });
        if (typeof reasoning?.signature === 'string' && reasoning.signature !== '') parts.push({ type: 'reasoning-signature', signature: reasoning.signature });
        if (typeof reasoning?.redactedContent === 'string') parts.push({ type: 'reasoning-redacted', data: reasoning.redactedContent });
        const tool = toolBlocks.get(event.contentBlockIndex ?? -1);
        if (tool && typeof delta?.toolUse?.input === 'string' && delta.toolUse.input !== '') {
          tool.hasArguments = true;
          parts.push({ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: delta.toolUse.input });
        }
        return parts;
      }
      case 'contentBlockStop': {
        // A call without arguments streams no JSON at all; send `{}` so that clients can parse it.
        const tool = toolBlocks.get((data as ConverseStreamPayloads['contentBlockStop']).contentBlockIndex ?? -1);
        if (!tool || tool.hasArguments) return [];
        tool.hasArguments = true;
        return [{ type: 'tool-call-delta', index: tool.toolIndex, argumentsDelta: '{}' }];
      }
      case 'messageStop':
        stop = data as ConverseStreamPayloads['messageStop'];
        return usage ? [...start(), finish()] : start();
      case 'metadata':
        usage = asRecord((data as ConverseStreamPayloads['metadata']).usage) ?? {};
        return stop ? [...start(), finish()] : [];
      default:
        // Event types added after this was written.
        return [];
    }
  };

  return {
    read(message) {
      const { headers } = message;
      // `exception`: a Bedrock error type with a JSON `{message}`; `error`: the framing's own error, its code and message in headers.
      if (headers[':message-type'] === 'exception') return [toErrorPart(bedrockStreamException(providerId, message), options)];
      if (headers[':message-type'] === 'error') {
        const error = { headers: { ':exception-type': headers[':error-code'] ?? 'unknownError' }, body: encoder.encode(JSON.stringify({ message: headers[':error-message'] ?? '' })) };
        return [toErrorPart(bedrockStreamException(providerId, error), options)];
      }
      const payload = decoder.decode(message.body);
      let data: Record<string, unknown> | undefined;
      try {
        data = asRecord(JSON.parse(payload));
      } catch {
        data = undefined;
      }
      if (!data) return [toErrorPart(createProtocolError(providerId, 'sent malformed stream data', payload), options)];
      return readEvent(headers[':event-type'], data);
    },
    end: () => (stop ? finish() : undefined),
  };
}
