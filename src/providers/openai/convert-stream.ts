import type { Citation } from '../../core/content.js';
import type { FinishReason } from '../../core/finish-reason.js';
import type { StreamPart } from '../../core/stream-part.js';
import type { Usage } from '../../core/usage.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { createEstimatedUsage } from '../shared/create-estimated-usage.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { toUpstreamError } from '../shared/send-request.js';
import { toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { createToolCallTracker, type ToolCallTracker } from './create-tool-call-tracker.js';
import { asArray, asRecord, asString, type JsonRecord } from '../shared/lenient-json.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { mapInBandError } from './map-error.js';
import { readCitations } from './read-citations.js';
import { readMessageText } from './read-message-text.js';

/**
 * Chat Completions stream events (https://platform.openai.com/docs/api-reference/chat-streaming)
 * → canonical parts, ending with one `finish` or one `error` part.
 */
export async function* convertChatCompletionStream(events: AsyncIterable<SseEvent>, options: StreamConverterOptions): AsyncGenerator<StreamPart, void, undefined> {
  try {
    yield* readChatCompletionStream(events, options.providerId);
  } catch (error) {
    yield toErrorPart(toUpstreamError(options.providerId, error), options);
  }
}

/**
 * Throws `UpstreamError` instead of yielding an `error` part: on an in-band error event, a
 * malformed event, a transport failure, or a body that ends before any finish reason.
 */
async function* readChatCompletionStream(events: AsyncIterable<SseEvent>, providerId: string): AsyncGenerator<StreamPart, void, undefined> {
  const tools = createToolCallTracker();
  const parts: StreamPart[] = [];
  let finishReason: FinishReason | undefined;
  let stopSequence: string | undefined;
  let usage: Usage | undefined;
  let citations: Citation[] | undefined;
  let started = false;

  for await (const event of events) {
    // The end sentinel; nothing after it is read, and leaving the loop closes the body.
    if (event.data === '[DONE]') break;
    const chunk = parseChunk(event, providerId);
    if (!started) {
      started = true;
      parts.push(createStartPart(chunk));
    }
    // OpenAI sends usage in a last chunk with empty `choices`; DeepSeek beside the finish
    // reason; some servers a running total in every chunk. The latest one wins.
    usage = mapUsage(chunk.usage) ?? usage;
    citations = readCitations(chunk) ?? citations;
    const choice = asRecord(asArray(chunk.choices)[0]);
    const delta = asRecord(choice?.delta);
    if (delta) convertDelta(delta, tools, parts);
    if (choice?.finish_reason != null) {
      finishReason = mapFinishReason(choice.finish_reason);
      // vLLM names the matched stop string (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html).
      stopSequence = asString(choice.stop_reason);
    }
    yield* parts;
    parts.length = 0;
  }

  if (finishReason === undefined) throw createProtocolError(providerId, 'ended the stream before a finish reason');
  if (tools.hasUnnamedCalls()) throw createProtocolError(providerId, 'streamed a tool call without a function name');
  // Sources cite the answer as a whole; the list is complete only at the end.
  for (const citation of citations ?? []) yield { type: 'citation', citation };
  const finish: StreamPart = { type: 'finish', finishReason, usage: usage ?? createEstimatedUsage() };
  if (stopSequence && finishReason === 'stop') finish.stopSequence = stopSequence;
  yield finish;
}

function parseChunk(event: SseEvent, providerId: string): JsonRecord {
  let record: JsonRecord | undefined;
  try {
    record = asRecord(JSON.parse(event.data));
  } catch {
    record = undefined;
  }
  const inBandError = record && mapInBandError(record, providerId, event.data);
  if (inBandError) throw inBandError;
  if (event.event === 'error') throw createProtocolError(providerId, 'sent an error event', event.data);
  if (!record) throw createProtocolError(providerId, 'sent a stream event that is not a JSON object', event.data);
  return record;
}

function createStartPart(chunk: JsonRecord): StreamPart {
  const start: StreamPart = { type: 'start' };
  const id = asString(chunk.id);
  const model = asString(chunk.model);
  if (id) start.providerResponseId = id;
  if (model) start.providerModel = model;
  return start;
}

function convertDelta(delta: JsonRecord, tools: ToolCallTracker, parts: StreamPart[]): void {
  const { text, reasoning } = readMessageText(delta);
  if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
  if (text) parts.push({ type: 'text-delta', text });
  const toolCalls = asArray(delta.tool_calls);
  if (toolCalls.length > 0) tools.accept(toolCalls, parts);
}
