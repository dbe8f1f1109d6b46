import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { RelayedPart, StreamPart } from '../../core/stream-part.js';
import type { TextResult } from '../../core/text-result.js';
import type { Principal } from '../../auth/principal.js';
import type { CancelSignal } from '../../core/cancel-signal.js';
import type { TextGenerationOutcome } from '../../generation/generate-text.js';
import type { PassThroughInput } from '../../generation/plan-pass-through.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { writeSse } from '../../http/write-sse.js';
import { encodeRelayedStream, withSettledUsage, type RelayStyle } from './relay-frames.js';
import type { DecodedTextCall, ResponseMeta } from './text-call.js';
import type { Candidate } from '../../catalog/candidate.js';
import type { CacheHeaders } from '../../cache/plan-caching.js';
import { runTextTurn, type AnsweredOutcome, type StreamedOutcome, type TextTurnTransport } from './run-text-turn.js';

/** What differs between /chat/completions, /responses, /messages and Gemini's generateContent: the wire style. */
export interface TextStyle<Extra> {
  api: 'chat' | 'responses' | 'messages' | 'gemini';
  /** An asynchronous step before decoding (Responses: continuing from a stored response). */
  prepare?(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  decode(body: Record<string, unknown>, headers: Record<string, string | string[] | undefined>, request: FastifyRequest): { call: DecodedTextCall; extra: Extra };
  /** The answer's body; a promise when encoding also keeps state (a stored Response). */
  encodeResponse(result: TextResult, meta: ResponseMeta, cost: bigint, extra: Extra): unknown;
  encodeStream(parts: AsyncIterable<StreamPart>, meta: ResponseMeta, extra: Extra): AsyncIterable<string>;
  heartbeatFrame: string;
  /**
   * For a style whose model and streaming are in the URL (Gemini's `models/{model}:streamGenerateContent`):
   * the request log's endpoint and the model and streaming the body does not carry.
   */
  describe?(request: FastifyRequest): { endpoint: string; model: string; stream: boolean };
  /** A stream that is not SSE (Gemini's JSON array without `alt=sse`): its content type and keep-alive. */
  streamFraming?(extra: Extra): { contentType: string; heartbeatFrame: string };
  /** Set by the styles that have a native pass-through (Messages, Chat Completions, Gemini). */
  relay?: RelayStyle;
  /** A relayed stream in a framing of the style's own (Gemini's SSE or JSON array); default `encodeRelayedStream`. */
  encodeRelayedStream?(parts: AsyncIterable<RelayedPart>, meta: ResponseMeta, extra: Extra): AsyncIterable<string>;
}

const heartbeatMs = 15_000;

/**
 * Decode the style → generate (route, reserve, call, settle) → encode the style, as JSON or
 * SSE, through the one text-turn runner (`run-text-turn.ts`). The client's disconnect aborts the
 * upstream call through the signal.
 */
export function handleTextRequest<Extra>(context: AppContext, style: TextStyle<Extra>, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return runTextTurn(context, new HttpTextTurn(context, style, request, reply));
}

/** The HTTP transport of a text turn: reads the body and headers, writes headers and a JSON answer or an SSE stream. */
class HttpTextTurn<Extra> implements TextTurnTransport<Extra> {
  readonly requestId: string;
  readonly principal: Principal;
  readonly api: TextStyle<Extra>['api'];
  readonly endpoint: string;
  readonly recordBody: Record<string, unknown>;
  readonly body: Record<string, unknown>;
  readonly signal: CancelSignal;
  readonly passThrough: PassThroughInput | undefined;
  /** Only for the styles that have the step, so that the others' turns do not wait a tick for nothing. */
  readonly prepare: ((body: Record<string, unknown>) => Promise<Record<string, unknown>>) | undefined;
  readonly cache: { headers: CacheHeaders; endpoint: string } | undefined;

  constructor(
    private readonly context: AppContext,
    private readonly style: TextStyle<Extra>,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    const body = request.body as Record<string, unknown>;
    const described = style.describe?.(request);
    this.requestId = request.id;
    this.principal = request.principal!;
    this.api = style.api;
    this.endpoint = described?.endpoint ?? endpointOf(request.routeOptions.url!);
    this.recordBody = described ? { ...body, model: described.model, stream: described.stream } : body;
    this.body = body;
    this.signal = abortOnClientClose(reply);
    this.passThrough = style.relay && context.config.server.passThrough !== false ? { body, rules: style.relay.rules } : undefined;
    this.prepare = style.prepare && ((input) => style.prepare!(input));
    // Read only when the cache is on: the headers stay untouched on the hot path otherwise.
    this.cache = context.responseCache === null ? undefined : { headers: cacheHeadersOf(request), endpoint: cacheEndpointOf(this.endpoint) };
  }

  cacheAnswered(state: 'hit' | 'miss', ageSeconds?: number): void {
    this.reply.header('x-switchyard-cache', state);
    if (ageSeconds !== undefined) this.reply.header('age', String(ageSeconds));
  }

  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: Extra } {
    return this.style.decode(body, this.request.headers, this.request);
  }

  answered(outcome: TextGenerationOutcome): void {
    this.reply.header('x-switchyard-provider', outcome.candidate.provider.id);
    // Preferences the endpoint could not honour were left out (contract §4): the answer says which.
    const omitted = outcome.omitted.length > 0 ? outcome.omitted.join(', ') : undefined;
    if (omitted) this.reply.header('x-switchyard-omitted', omitted);
  }

  elapsedSeconds(): number {
    return this.reply.elapsedTime / 1000;
  }

  sendAnswer(outcome: AnsweredOutcome, extra: Extra): unknown {
    const { style, reply } = this;
    if (outcome.relayed) {
      return reply.send(withSettledUsage(outcome.body, style.relay!, outcome.usage, outcome.cost));
    }
    const encoded = style.encodeResponse(outcome.result, responseMeta(this.context, this.request, outcome.candidate), outcome.cost, extra);
    return encoded instanceof Promise ? encoded.then((response) => reply.send(response)) : reply.send(encoded);
  }

  writeStream(outcome: StreamedOutcome, extra: Extra): Promise<void> {
    const { style, request } = this;
    const meta = responseMeta(this.context, request, outcome.candidate);
    const frames = outcome.relayed
      ? (style.encodeRelayedStream?.(outcome.parts, meta, extra) ?? encodeRelayedStream(outcome.parts, meta, style.relay!))
      : style.encodeStream(outcome.parts, meta, extra);
    const framing = style.streamFraming?.(extra);
    return writeSse(this.reply, frames, {
      heartbeatFrame: framing?.heartbeatFrame ?? style.heartbeatFrame,
      contentType: framing?.contentType,
      heartbeatMs,
      onWriteError: (error) => request.log.warn({ err: error }, 'stream ended early'),
    });
  }

  streamEnded(): unknown {
    return this.reply;
  }
}

/** The response's identity, made only for the answers that carry it (a relayed JSON answer keeps the provider's). */
function responseMeta(context: AppContext, request: FastifyRequest, candidate: Candidate): ResponseMeta {
  return { id: request.id, model: candidate.model.id, created: Math.floor(context.clock.now().getTime() / 1000) };
}

/** The request log's endpoint of a route: its pattern without the `/v1` prefix. */
function endpointOf(route: string): string {
  return route.startsWith('/v1') ? route.slice(3) : route;
}

function cacheHeadersOf(request: FastifyRequest): CacheHeaders {
  const mode = request.headers['x-switchyard-cache'];
  const ttl = request.headers['x-switchyard-cache-ttl'];
  return { mode: Array.isArray(mode) ? mode[0] : mode, ttl: Array.isArray(ttl) ? ttl[0] : ttl };
}

/** Gemini's streaming action answers what its plain one does: one entry serves both (the body's `stream` does the same elsewhere). */
function cacheEndpointOf(endpoint: string): string {
  return endpoint.endsWith(':streamGenerateContent') ? `${endpoint.slice(0, -':streamGenerateContent'.length)}:generateContent` : endpoint;
}
