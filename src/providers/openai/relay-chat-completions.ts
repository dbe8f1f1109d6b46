import { performance } from 'node:perf_hooks';
import type { FinishReason } from '../../core/finish-reason.js';
import type { HeldEvent, RelayedPart, StreamPart } from '../../core/stream-part.js';
import type { Usage } from '../../core/usage.js';
import type { CallContext, RelayCall, RelayedAnswer, TextRelay } from '../provider-adapter.js';
import { createEstimatedUsage } from '../shared/create-estimated-usage.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { createSseDecoder, type SseEvent } from '../shared/parse-sse.js';
import { postJson, toUpstreamError } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { convertChatCompletionResponse } from './convert-response.js';
import { asArray, asRecord, type JsonRecord } from '../shared/lenient-json.js';
import { mapInBandError } from './map-error.js';
import { mapFinishReason } from './map-finish-reason.js';
import { mapUsage } from './map-usage.js';
import { readMessageText } from './read-message-text.js';
import { createChatChunkNormalizer, normalizeChatCompletion } from './normalize-chat-dialect.js';
import { isOpenAiHost } from './convert-request.js';
import { authorizationHeaders, chatCompletionsUrl } from './transport.js';
import { planChatCompletionsPassThrough } from './plan-pass-through.js';

type ChatRelayIdentity = RelayCall['identity'];

/** The Chat Completions pass-through of the `openai` protocol. */
export const chatCompletionsRelay: TextRelay = {
  planPassThrough: planChatCompletionsPassThrough,
  relay: (call, context) => relayChatCompletion(upstreamBody(call, context, false), context, call.identity),
  relayStream: (call, context) => relayChatCompletionStream(upstreamBody(call, context, true), context, call.identity),
};

/**
 * The client's body with the cap the gateway fixed (contract §5: the client's, lowered to the
 * endpoint's, or what the funds allow when the client set none) in the field the client used,
 * else in the one the translated path uses for this host; and usage asked for on streams, which
 * the gateway reads to charge.
 */
function upstreamBody(call: RelayCall, context: CallContext, stream: boolean): JsonRecord {
  const body = call.body;
  const cap = call.request.maxTokens;
  if (cap !== undefined) {
    if ('max_completion_tokens' in body) body.max_completion_tokens = cap;
    else if ('max_tokens' in body) body.max_tokens = cap;
    else if (isOpenAiHost(context.provider.baseUrl)) body.max_completion_tokens = cap;
    else body.max_tokens = cap;
  }
  if (stream) {
    const options = asRecord(body.stream_options) ?? {};
    body.stream_options = { ...options, include_usage: true };
  }
  return body;
}

/**
 * Native pass-through for Chat Completions: sends the client's own body (rewritten by
 * `plan-pass-through.ts` and `upstreamBody`) and answers the provider's completion in OpenAI's
 * shape (`normalize-chat-dialect.ts`) with the gateway's `id` and `model`; the cost is added to
 * `usage` once settled. A 200 carrying an error object is still an upstream error, as on the
 * translated path.
 */
async function relayChatCompletion(body: JsonRecord, context: CallContext, identity: ChatRelayIdentity): Promise<RelayedAnswer> {
  const { provider } = context;
  const response = await postJson(context, chatCompletionsUrl(provider, context.providerModel), await authorizationHeaders(provider), body);
  let raw: string;
  try {
    raw = await response.body.text();
  } catch (error) {
    throw toUpstreamError(provider.id, error);
  }
  let record: JsonRecord | undefined;
  try {
    record = asRecord(JSON.parse(raw));
  } catch {
    record = undefined;
  }
  if (!record) throw createProtocolError(provider.id, 'sent a body that is not a JSON object', raw);
  const inBandError = mapInBandError(record, provider.id, raw);
  if (inBandError) throw inBandError;
  normalizeChatCompletion(record);
  record.id = identity.id;
  record.model = identity.model;
  return {
    body: record,
    usage: mapUsage(record.usage) ?? createEstimatedUsage(),
    text: () =>
      convertChatCompletionResponse(raw, provider.id)
        .content.map((part) => (part.type === 'tool-call' ? part.name + part.arguments : part.text))
        .join(''),
  };
}

/**
 * The streaming pass-through: every chunk goes to the client in OpenAI's shape (the vendor's
 * dialect read by `normalize-chat-dialect.ts`) with the gateway's `id` and `model`; the usage
 * chunk and `[DONE]` are held until the charge is known (a usage chunk is made from the usage
 * the provider sent beside the choices, or empty when it sent none, as the translated path
 * always sends one). Beside the frames come the canonical parts the meter reads: text for an estimate when
 * the client leaves, the finish with the usage, or an error.
 */
async function relayChatCompletionStream(body: JsonRecord, context: CallContext, identity: ChatRelayIdentity): Promise<AsyncIterable<RelayedPart>> {
  const { provider } = context;
  const deadline = performance.now() + provider.timeouts.firstByteMs;
  const response = await postJson(context, chatCompletionsUrl(provider, context.providerModel), await authorizationHeaders(provider), body);
  const parts = await startProviderStream(response.body, (chunks, options) => relayChunks(chunks, options, identity) as AsyncGenerator<StreamPart>, {
    providerId: provider.id,
    signal: context.signal,
    firstPartTimeoutMs: deadline - performance.now(),
  });
  return parts as AsyncIterable<RelayedPart>;
}

/**
 * Reads the body one upstream read at a time: the events of one read (an unpaced provider sends
 * a whole answer in a read or two) go on as one part carrying all their frames, so each step
 * after this one — the first-part gate, the meter, the style's encoder, the socket writer — costs
 * a promise per read, not per event. The client's bytes are the same: `writeSse` joins the frames
 * of one read into one write either way.
 */
async function* relayChunks(body: AsyncIterable<Uint8Array | string>, options: StreamConverterOptions, identity: ChatRelayIdentity): AsyncGenerator<RelayedPart> {
  const { providerId } = options;
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  let usageChunk: JsonRecord | undefined;
  let created: unknown;
  const normalizer = createChatChunkNormalizer();
  const decoder = createSseDecoder();
  // The frames of the events read so far from the current upstream read, and the text they generated.
  let frames = '';
  let generated = '';
  const takeBatch = (): RelayedPart => {
    const part: RelayedPart = generated ? { type: 'text-delta', text: generated, frame: frames } : { type: 'relay-frame', frame: frames };
    frames = '';
    generated = '';
    return part;
  };
  /** Relays the events into the batch; answers how the stream ends when one of them ends it. */
  const relayEvents = (events: readonly SseEvent[]): 'done' | RelayedPart | undefined => {
    for (const event of events) {
      if (event.data === '[DONE]') return 'done';
      let chunk: JsonRecord | undefined;
      try {
        chunk = asRecord(JSON.parse(event.data));
      } catch {
        chunk = undefined;
      }
      const inBandError = chunk && mapInBandError(chunk, providerId, event.data);
      if (inBandError) return toErrorPart(inBandError, options);
      if (!chunk || event.event === 'error') {
        return toErrorPart(createProtocolError(providerId, chunk ? 'sent an error event' : 'sent a stream event that is not a JSON object', event.data), options);
      }
      chunk.id = identity.id;
      chunk.model = identity.model;
      created ??= chunk.created;
      const choices = asArray(chunk.choices);
      // OpenAI puts `usage: null` in every chunk once usage is asked for, which the gateway always
      // does; others put running or final usage beside the choices. The client gets it once, at
      // the end with the cost (OpenRouter's SDK rejects a null there).
      if (choices.length === 0 && chunk.usage != null) {
        usage = mapUsage(chunk.usage) ?? usage;
        usageChunk = chunk;
        continue;
      }
      for (const normalized of normalizer.normalize(chunk)) {
        frames += `data: ${JSON.stringify(normalized)}\n\n`;
        const choice = asRecord(asArray(normalized.choices)[0]);
        const delta = asRecord(choice?.delta);
        if (delta) generated += readGeneratedText(delta);
        if (choice?.finish_reason != null) finishReason = mapFinishReason(choice.finish_reason);
      }
      usage = mapUsage(normalizer.usage) ?? usage;
    }
    return undefined;
  };
  let ending: 'done' | RelayedPart | undefined;
  try {
    for await (const chunk of body) {
      ending = relayEvents(decoder.feed(chunk));
      if (frames !== '') yield takeBatch();
      if (ending !== undefined) break;
    }
    if (ending === undefined) {
      ending = relayEvents(decoder.end());
      if (frames !== '') yield takeBatch();
    }
  } catch (error) {
    yield toErrorPart(toUpstreamError(providerId, error), options);
    return;
  }
  if (ending !== undefined && ending !== 'done') {
    yield ending;
    return;
  }
  if (finishReason === undefined) {
    yield toErrorPart(createProtocolError(providerId, 'ended the stream before a finish reason'), options);
    return;
  }
  usageChunk ??= { id: identity.id, object: 'chat.completion.chunk', created, model: identity.model, choices: [], usage: normalizer.usage ?? {} };
  const held: HeldEvent[] = [{ data: usageChunk }, { data: '[DONE]' }];
  yield { type: 'finish', finishReason, usage: usage ?? createEstimatedUsage(), held };
}

/**
 * The text a chunk's delta generated, as the meter counts it when it must estimate (reasoning,
 * content and tool arguments alike: all are billed as output).
 */
function readGeneratedText(delta: JsonRecord): string {
  const { text, reasoning } = readMessageText(delta);
  let generated = (reasoning ?? '') + (text ?? '');
  const calls = delta.tool_calls;
  if (Array.isArray(calls)) {
    for (const call of calls) {
      const fn = asRecord(asRecord(call)?.function);
      if (typeof fn?.arguments === 'string') generated += fn.arguments;
    }
  }
  return generated;
}
