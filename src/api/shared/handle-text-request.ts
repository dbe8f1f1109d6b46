import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { StreamPart } from '../../core/stream-part.js';
import type { TextResult } from '../../core/text-result.js';
import { generateText } from '../../generation/generate-text.js';
import { writeSse } from '../../http/write-sse.js';
import type { DecodedTextCall, ResponseMeta } from './text-call.js';

/** What differs between /chat/completions, /responses and /messages: the wire style. */
export interface TextStyle<Extra> {
  api: 'chat' | 'responses' | 'messages';
  decode(body: Record<string, unknown>): { call: DecodedTextCall; extra: Extra };
  encodeResponse(result: TextResult, meta: ResponseMeta, cost: bigint, extra: Extra): unknown;
  encodeStream(parts: AsyncIterable<StreamPart>, meta: ResponseMeta, extra: Extra): AsyncIterable<string>;
  heartbeatFrame: string;
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
  const { call, extra } = style.decode(request.body as Record<string, unknown>);
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const outcome = await generateText(context, {
    principal: request.principal!,
    call,
    requestId: request.id,
    api: style.api,
    signal: controller.signal,
    onSettled: (candidate, settlement) =>
      request.log.debug({ provider: candidate.provider.id, model: candidate.model.id, status: settlement.status, cost: settlement.cost.toString() }, 'settled'),
  });
  const meta: ResponseMeta = { id: request.id, model: outcome.candidate.model.id, created: Math.floor(context.clock.now().getTime() / 1000) };
  reply.header('x-switchyard-provider', outcome.candidate.provider.id);
  if (!outcome.stream) return reply.send(style.encodeResponse(outcome.result, meta, outcome.cost, extra));
  reply.raw.setHeader('x-switchyard-provider', outcome.candidate.provider.id);
  await writeSse(reply, style.encodeStream(outcome.parts, meta, extra), {
    heartbeatFrame: style.heartbeatFrame,
    heartbeatMs,
    onWriteError: (error) => request.log.warn({ err: error }, 'stream ended early'),
  });
  return reply;
}
