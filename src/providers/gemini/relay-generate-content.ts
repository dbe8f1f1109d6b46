import { performance } from 'node:perf_hooks';
import type { HeldEvent, RelayedPart, StreamPart } from '../../core/stream-part.js';
import type { CallContext, RelayCall, RelayedAnswer, RelayIdentity, TextRelay } from '../provider-adapter.js';
import type { SseEvent } from '../shared/parse-sse.js';
import { parseSse } from '../shared/parse-sse.js';
import { postJson, readJsonObject, type UpstreamResponse } from '../shared/send-request.js';
import { startProviderStream } from '../shared/start-provider-stream.js';
import type { StreamConverterOptions } from '../shared/stream-converter.js';
import { convertResponse } from './convert-response.js';
import { convertStream } from './convert-stream.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { mapError, mapHttpError } from './map-error.js';
import { mapUsage } from './map-usage.js';
import { geminiHeaders, geminiModelUrl } from './transport.js';
import { planGenerateContentPassThrough } from './plan-pass-through.js';
import { withFields } from '../../core/with-fields.js';

/** The `generateContent` pass-through of the `gemini` protocol (the Gemini style to a gemini-wire endpoint). */
export const generateContentRelay: TextRelay = {
  planPassThrough: planGenerateContentPassThrough,
  relay: (call, context) => relayGenerateContent(upstreamBody(call), context, call.identity),
  relayStream: (call, context) => relayGenerateContentStream(upstreamBody(call), context, call.identity),
};

/** The client's body with the cap the gateway fixed (the client's, the endpoint's or what the funds allow). */
function upstreamBody(call: RelayCall): Record<string, unknown> {
  if (call.request.maxTokens === undefined) return call.body;
  const config = call.body.generationConfig;
  call.body.generationConfig = { ...(typeof config === 'object' && config !== null ? config : {}), maxOutputTokens: call.request.maxTokens };
  return call.body;
}

/**
 * Native pass-through for Gemini's `generateContent` (the Gemini style to a gemini-wire endpoint):
 * the client's own body (already rewritten by `plan-pass-through.ts`) goes to the provider,
 * and its answer comes back with only `responseId` and `modelVersion` rewritten; the cost is added
 * to `usageMetadata` once settled. Thought signatures stay as Gemini sent them: the Gemini style
 * gives Gemini's own signatures untagged (`api/gemini/encode-signature.ts`).
 */
async function relayGenerateContent(body: Record<string, unknown>, context: CallContext, identity: RelayIdentity): Promise<RelayedAnswer> {
  const response = await send(context, geminiModelUrl(context.provider, context.providerModel, 'generateContent'), body);
  const answer = await readJsonObject<GeminiResponse & Record<string, unknown>>(context.provider.id, response);
  if (answer.error) throw mapError(context.provider.id, answer.error);
  rewriteIdentity(answer, identity);
  return {
    body: answer,
    usage: mapUsage(answer.usageMetadata),
    text: () =>
      convertResponse(answer)
        .content.map((part) => (part.type === 'tool-call' ? part.name + part.arguments : part.text))
        .join(''),
  };
}

/**
 * The streaming pass-through: each chunk goes to the client as it came but for its identity (a
 * `relay-frame` holding the chunk's JSON, which the style frames as SSE or as a JSON array), and
 * from the chunk that states the finish reason on, chunks are held until the charge is known, so
 * the last one carries the cost. Beside the frames come the parts of Gemini's own converter, which
 * the meter reads.
 */
async function relayGenerateContentStream(body: Record<string, unknown>, context: CallContext, identity: RelayIdentity): Promise<AsyncIterable<RelayedPart>> {
  const deadline = performance.now() + context.provider.timeouts.firstByteMs;
  const response = await send(context, `${geminiModelUrl(context.provider, context.providerModel, 'streamGenerateContent')}?alt=sse`, body);
  const parts = await startProviderStream(response.body, (chunks, options) => relayChunks(parseSse(chunks), options, identity) as AsyncGenerator<StreamPart>, {
    providerId: context.provider.id,
    signal: context.signal,
    firstPartTimeoutMs: deadline - performance.now(),
  });
  return parts as AsyncIterable<RelayedPart>;
}

async function* relayChunks(events: AsyncIterable<SseEvent>, options: StreamConverterOptions, identity: RelayIdentity): AsyncGenerator<RelayedPart> {
  // Gemini's converter reads the events; this taps them on the way, in order. A part comes out
  // only after the event it came from was read, so the frames queued by then are its own and
  // those of the events before it that had no part.
  const queued: Array<Record<string, unknown> | string> = [];
  const held: HeldEvent[] = [];
  let finishing = false;
  async function* tap(): AsyncGenerator<SseEvent> {
    for await (const event of events) {
      queued.push(readChunk(event.data, identity));
      yield event;
    }
  }
  const frames = function* (): Generator<RelayedPart> {
    for (const chunk of queued.splice(0)) {
      if (typeof chunk === 'object' && chunk.error === undefined) {
        finishing ||= hasFinishReason(chunk);
        if (finishing) {
          held.push({ data: chunk });
          continue;
        }
      }
      yield { type: 'relay-frame', frame: typeof chunk === 'string' ? chunk : JSON.stringify(chunk) };
    }
  };
  for await (const part of convertStream(tap(), options)) {
    if (part.type === 'error') {
      // The error reaches the client in the gateway's envelope, from the canonical part.
      queued.length = 0;
      yield part;
      return;
    }
    yield* frames();
    if (part.type === 'finish') {
      // A stream that ended without a finish reason (a blocked prompt) still gets a chunk for the cost.
      if (held.length === 0) held.push({ data: { candidates: [], modelVersion: identity.model, responseId: identity.id } });
      yield withFields(part, { held });
      return;
    }
    yield part;
  }
}

function readChunk(data: string, identity: RelayIdentity): Record<string, unknown> | string {
  try {
    const chunk: unknown = JSON.parse(data);
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) return data;
    rewriteIdentity(chunk as Record<string, unknown>, identity);
    return chunk as Record<string, unknown>;
  } catch {
    return data;
  }
}

function hasFinishReason(chunk: Record<string, unknown>): boolean {
  const candidates = chunk.candidates;
  return Array.isArray(candidates) && candidates.some((candidate) => typeof candidate === 'object' && candidate !== null && 'finishReason' in candidate);
}

function rewriteIdentity(answer: Record<string, unknown>, identity: RelayIdentity): void {
  if ('responseId' in answer) answer.responseId = identity.id;
  if ('modelVersion' in answer) answer.modelVersion = identity.model;
}

async function send(context: CallContext, url: string, body: unknown): Promise<UpstreamResponse> {
  try {
    return await postJson(context, url, await geminiHeaders(context.provider), body);
  } catch (error) {
    throw mapHttpError(error);
  }
}
