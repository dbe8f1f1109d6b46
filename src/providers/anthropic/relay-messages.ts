import { performance } from 'node:perf_hooks';
import type { HeldEvent, RelayedPart, StreamPart } from '../../core/stream-part.js';
import type { CallContext, RelayCall, RelayedAnswer, RelayIdentity, TextRelay } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { postJson, readJsonObject, toUpstreamError } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import { toErrorPart, type StreamConverterOptions } from '../shared/stream-converter.js';
import { convertAnthropicResponse } from './convert-response.js';
import { createAnthropicEventHandler, isRepeatedStart } from './convert-stream.js';
import { mapAnthropicUsage } from './map-usage.js';
import { postMessages, readMessagesEvents } from './transport.js';
import { planMessagesPassThrough } from './plan-pass-through.js';
import type { AnthropicMessage, AnthropicStreamEvent } from '../../wire/anthropic/wire-types.js';
import { withFields } from '../../core/with-fields.js';

/** The Messages pass-through of the `anthropic` protocol. */
export const messagesRelay: TextRelay = {
  planPassThrough: planMessagesPassThrough,
  relay: (call, context) => relayMessages(upstreamBody(call), call.request.anthropic?.betas, context, call.identity),
  relayStream: (call, context) => relayMessagesStream(upstreamBody(call), call.request.anthropic?.betas, context, call.identity),
};

/** The client's body with the cap the gateway fixed (the client's, or lowered to the endpoint's). */
function upstreamBody(call: RelayCall): Record<string, unknown> {
  if (call.request.maxTokens !== undefined) call.body.max_tokens = call.request.maxTokens;
  return call.body;
}

/**
 * Native pass-through for Anthropic Messages: sends the client's own body (already rewritten by
 * `plan-pass-through.ts`) and answers the provider's message with only `id`, `model` and the
 * reasoning signatures rewritten; the cost is added to `usage` once settled.
 */
async function relayMessages(body: Record<string, unknown>, betas: readonly string[] | undefined, context: CallContext, identity: RelayIdentity): Promise<RelayedAnswer> {
  const response = await postMessages(context, betas, body, false);
  const message = await readJsonObject<AnthropicMessage & Record<string, unknown>>(context.provider.id, response);
  message.id = identity.id;
  message.model = identity.model;
  for (const block of message.content ?? []) {
    if (block.type === 'thinking' && typeof block.signature === 'string' && block.signature) block.signature = identity.tagSignature(block.signature);
  }
  return {
    body: message,
    usage: mapAnthropicUsage(message.usage),
    text: () =>
      convertAnthropicResponse(message)
        .content.map((part) => (part.type === 'tool-call' ? part.name + part.arguments : part.text))
        .join(''),
  };
}

/**
 * The streaming pass-through: each provider event goes to the client as it came (a
 * `relay-frame`), except `message_start` (the gateway's id and model), signature deltas (tagged)
 * and the closing `message_delta` / `message_stop`, held until the charge is known. Beside the
 * frames come the canonical parts of Anthropic's own converter, which the meter reads.
 */
async function relayMessagesStream(
  body: Record<string, unknown>,
  betas: readonly string[] | undefined,
  context: CallContext,
  identity: RelayIdentity,
): Promise<AsyncIterable<RelayedPart>> {
  const deadline = performance.now() + context.provider.timeouts.firstByteMs;
  const response = await postMessages(context, betas, body, true);
  const parts = await startProviderStream(response.body, (chunks, options) => relayEvents(readMessagesEvents(context.provider, chunks), options, identity) as AsyncGenerator<StreamPart>, {
    providerId: context.provider.id,
    signal: context.signal,
    firstPartTimeoutMs: deadline - performance.now(),
  });
  return parts as AsyncIterable<RelayedPart>;
}

async function* relayEvents(events: AsyncIterable<SseEvent>, options: StreamConverterOptions, identity: RelayIdentity): AsyncGenerator<RelayedPart> {
  const handle = createAnthropicEventHandler(options);
  const held: HeldEvent[] = [];
  const stop: { reason?: string; sequence?: string } = {};
  let opened = false;
  let openedId: string | undefined;
  const iterator = events[Symbol.asyncIterator]();
  try {
    while (true) {
      let next: IteratorResult<SseEvent>;
      try {
        next = await iterator.next();
      } catch (error) {
        yield toErrorPart(toUpstreamError(options.providerId, error), options);
        return;
      }
      if (next.done) break;
      const event = next.value;
      if (event.event === 'message_start') {
        const data = readEvent(event.data);
        // A repeated announcement of the same message is folded: the client gets one.
        if (opened && data && isRepeatedStart(data, openedId)) continue;
        opened = true;
        openedId = data?.message?.id;
      }
      const parts = handle(event);
      const ended = parts.find((part) => part.type === 'finish' || part.type === 'error');
      if (ended?.type === 'error') {
        // The error reaches the client in the gateway's envelope, from the canonical part.
        yield* parts.filter((part) => part !== ended);
        yield ended;
        return;
      }
      const signed = parts.some((part) => part.type === 'reasoning-signature');
      let frame: string | undefined;
      if (event.event === 'message_start' || event.event === 'message_delta' || event.event === 'message_stop' || signed) {
        const data = JSON.parse(event.data) as Record<string, unknown>;
        rewriteEvent(data, identity);
        if (event.event === 'message_start') {
          const message = data.message as { stop_reason?: unknown; stop_sequence?: unknown } | undefined;
          if (typeof message?.stop_reason === 'string') stop.reason = message.stop_reason;
          if (typeof message?.stop_sequence === 'string') stop.sequence = message.stop_sequence;
        }
        if (event.event === 'message_delta' || event.event === 'message_stop') held.push({ event: event.event, data });
        else frame = `event: ${event.event}\ndata: ${JSON.stringify(data)}\n\n`;
      } else {
        frame = `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`;
      }
      // One object per event where it has a part: the frame rides on the first one.
      let carried = frame === undefined;
      for (const part of parts) {
        if (part === ended) continue;
        if (carried) yield part;
        else {
          carried = true;
          yield withFields(part, { frame });
        }
      }
      if (!carried) yield { type: 'relay-frame', frame: frame! };
      if (ended?.type === 'finish') {
        // The cost rides on `message_delta`; a stream that stated its stop in `message_start` and
        // sent none gets one, carrying that stop, just before `message_stop`.
        if (!held.some((one) => one.event === 'message_delta')) {
          held.unshift({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stop.reason ?? null, stop_sequence: stop.sequence ?? null }, usage: {} } });
        }
        yield withFields(ended, { held });
        return;
      }
    }
    yield toErrorPart(createProtocolError(options.providerId, 'stream ended before message_stop'), options);
  } finally {
    await iterator.return?.();
  }
}

function rewriteEvent(data: Record<string, unknown>, identity: RelayIdentity): void {
  const message = data.message as Record<string, unknown> | undefined;
  if (data.type === 'message_start' && message) {
    message.id = identity.id;
    message.model = identity.model;
    for (const block of (message.content as Array<Record<string, unknown>> | undefined) ?? []) tagBlock(block, identity);
  }
  const block = data.content_block as Record<string, unknown> | undefined;
  if (block) tagBlock(block, identity);
  const delta = data.delta as Record<string, unknown> | undefined;
  if (delta?.type === 'signature_delta' && typeof delta.signature === 'string' && delta.signature) delta.signature = identity.tagSignature(delta.signature);
}

function tagBlock(block: Record<string, unknown>, identity: RelayIdentity): void {
  if (block.type === 'thinking' && typeof block.signature === 'string' && block.signature) block.signature = identity.tagSignature(block.signature);
}

/** The event's JSON, or undefined for malformed data (which the event handler reports). */
function readEvent(data: string): AnthropicStreamEvent | undefined {
  try {
    return JSON.parse(data) as AnthropicStreamEvent;
  } catch {
    return undefined;
  }
}
