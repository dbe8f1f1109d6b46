import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { RelayedPart, StreamPart } from '../../core/stream-part.js';
import type { TextResult } from '../../core/text-result.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { generateText, type TextGenerationOutcome } from '../../generation/generate-text.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { writeSse } from '../../http/write-sse.js';
import { encodeRelayedStream, withCost, type RelayStyle } from './relay-frames.js';
import { withFields } from '../../core/with-fields.js';
import type { DecodedTextCall, ResponseMeta } from './text-call.js';
import type { Candidate } from '../../routing/candidate.js';

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
 * SSE. The client's disconnect aborts the upstream call through the signal.
 */
export async function handleTextRequest<Extra>(
  context: AppContext,
  style: TextStyle<Extra>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const body = request.body as Record<string, unknown>;
  const described = style.describe?.(request);
  // One request log row per request, also for refusals (402, 400 …) once a model was named.
  const record = startRequestRecord(context, {
    requestId: request.id,
    principal: request.principal!,
    endpoint: described?.endpoint ?? endpointOf(request.routeOptions.url!),
    body: described ? { ...body, model: described.model, stream: described.stream } : body,
  });
  const cancellation = abortOnClientClose(reply);
  let extra: Extra;
  let outcome: TextGenerationOutcome;
  try {
    const decoded = style.decode(style.prepare ? await style.prepare(body) : body, request.headers, request);
    extra = decoded.extra;
    record.identify(decoded.call.request.endUser);
    outcome = await generateText(context, {
      principal: request.principal!,
      call: decoded.call,
      requestId: request.id,
      api: style.api,
      signal: cancellation,
      // The paid call asks the recorder for the row and commits it with the charge, in the ledger's next batch.
      record,
      passThrough: style.relay && context.config.server.passThrough !== false ? { body, rules: style.relay.rules } : undefined,
    });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  reply.header('x-switchyard-provider', outcome.candidate.provider.id);
  // Preferences the endpoint could not honour were left out (contract §4): the answer says which.
  const omitted = outcome.omitted.length > 0 ? outcome.omitted.join(', ') : undefined;
  if (omitted) reply.header('x-switchyard-omitted', omitted);
  if (!outcome.stream) {
    await record.admitted;
    if (outcome.relayed) {
      const field = style.relay!.usageField ?? 'usage';
      // The provider's body stays as it came: the answer is a copy with the settled usage and cost.
      return reply.send(withFields(outcome.body, { [field]: withCost(outcome.body[field], style.relay!.encodeUsage(outcome.usage, outcome.cost)) }));
    }
    return reply.send(await style.encodeResponse(outcome.result, responseMeta(context, request, outcome.candidate), outcome.cost, extra));
  }
  const meta = responseMeta(context, request, outcome.candidate);
  // A stream resolves only once its first part arrived (see generateText): now is the first token.
  context.metrics.observeTimeToFirstToken(outcome.candidate.model.id, outcome.candidate.provider.id, reply.elapsedTime / 1000);
  try {
    const frames = outcome.relayed
      ? (style.encodeRelayedStream?.(outcome.parts, meta, extra) ?? encodeRelayedStream(outcome.parts, meta, style.relay!))
      : style.encodeStream(outcome.parts, meta, extra);
    const framing = style.streamFraming?.(extra);
    await writeSse(reply, frames, {
      heartbeatFrame: framing?.heartbeatFrame ?? style.heartbeatFrame,
      contentType: framing?.contentType,
      heartbeatMs,
      onWriteError: (error) => request.log.warn({ err: error }, 'stream ended early'),
    });
  } finally {
    // Settles and closes the provider stream if the client left before it was read.
    await outcome.close();
  }
  record.ended(outcome.candidate);
  await record.admitted;
  return reply;
}

/** The response's identity, made only for the answers that carry it (a relayed JSON answer keeps the provider's). */
function responseMeta(context: AppContext, request: FastifyRequest, candidate: Candidate): ResponseMeta {
  return { id: request.id, model: candidate.model.id, created: Math.floor(context.clock.now().getTime() / 1000) };
}

/** The request log's endpoint of a route: its pattern without the `/v1` prefix. */
function endpointOf(route: string): string {
  return route.startsWith('/v1') ? route.slice(3) : route;
}
