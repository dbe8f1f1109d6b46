import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { StreamPart } from '../../core/stream-part.js';
import type { TextResult } from '../../core/text-result.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { generateText, type TextGenerationOutcome } from '../../generation/generate-text.js';
import { writeSse } from '../../http/write-sse.js';
import { encodeRelayedStream, withCost, type RelayStyle } from './relay-frames.js';
import type { DecodedTextCall, ResponseMeta } from './text-call.js';

/** What differs between /chat/completions, /responses and /messages: the wire style. */
export interface TextStyle<Extra> {
  api: 'chat' | 'responses' | 'messages';
  /** An asynchronous step before decoding (Responses: continuing from a stored response). */
  prepare?(body: Record<string, unknown>): Promise<Record<string, unknown>>;
  decode(body: Record<string, unknown>, headers: Record<string, string | string[] | undefined>): { call: DecodedTextCall; extra: Extra };
  /** The answer's body; a promise when encoding also keeps state (a stored Response). */
  encodeResponse(result: TextResult, meta: ResponseMeta, cost: bigint, extra: Extra): unknown;
  encodeStream(parts: AsyncIterable<StreamPart>, meta: ResponseMeta, extra: Extra): AsyncIterable<string>;
  heartbeatFrame: string;
  /** Set by the styles that have a native pass-through (Messages, Chat Completions). */
  relay?: RelayStyle;
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
  // One request log row per request, also for refusals (402, 400 …) once a model was named.
  const record = startRequestRecord(context, { requestId: request.id, principal: request.principal!, endpoint: request.routeOptions.url!.replace(/^\/v1/, ''), body });
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  let extra: Extra;
  let outcome: TextGenerationOutcome;
  try {
    const decoded = style.decode(style.prepare ? await style.prepare(body) : body, request.headers);
    extra = decoded.extra;
    record.identify(decoded.call.request.endUser);
    outcome = await generateText(context, {
      principal: request.principal!,
      call: decoded.call,
      requestId: request.id,
      api: style.api,
      signal: controller.signal,
      // The row commits together with the charge, in the ledger's next batch.
      onSettled: (candidate, settlement) => record.settlementRow(candidate, settlement),
      passThrough: style.relay && context.config.server.passThrough !== false ? { body, rules: style.relay.rules } : undefined,
    });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  const meta: ResponseMeta = { id: request.id, model: outcome.candidate.model.id, created: Math.floor(context.clock.now().getTime() / 1000) };
  reply.header('x-switchyard-provider', outcome.candidate.provider.id);
  // Preferences the endpoint could not honour were left out (contract §4): the answer says which.
  const omitted = outcome.omitted.length > 0 ? outcome.omitted.join(', ') : undefined;
  if (omitted) reply.header('x-switchyard-omitted', omitted);
  if (!outcome.stream) {
    await record.admitted;
    if (outcome.relayed) {
      outcome.body.usage = withCost(outcome.body.usage, style.relay!.encodeUsage(outcome.usage, outcome.cost));
      return reply.send(outcome.body);
    }
    return reply.send(await style.encodeResponse(outcome.result, meta, outcome.cost, extra));
  }
  reply.raw.setHeader('x-switchyard-provider', outcome.candidate.provider.id);
  if (omitted) reply.raw.setHeader('x-switchyard-omitted', omitted);
  // A stream resolves only once its first part arrived (see generateText): now is the first token.
  context.metrics.observeTimeToFirstToken(outcome.candidate.model.id, outcome.candidate.provider.id, reply.elapsedTime / 1000);
  try {
    const frames = outcome.relayed ? encodeRelayedStream(outcome.parts, meta, style.relay!) : style.encodeStream(outcome.parts, meta, extra);
    await writeSse(reply, frames, {
      heartbeatFrame: style.heartbeatFrame,
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
