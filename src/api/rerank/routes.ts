import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { rerankDocuments } from '../../rerank/rerank-documents.js';
import { decodeRerankRequest } from './decode-rerank-request.js';
import { encodeRerankResponse } from './encode-rerank-response.js';

/**
 * POST /v1/rerank (contract §9): Cohere's v2 body and answer over every rerank model of the
 * catalog. Also at /v2/rerank, the path Cohere's own SDK (`cohere-ai`'s CohereClientV2) calls
 * under its base URL, so that SDK works unchanged pointed at the gateway: the body and answer are
 * the same. The charge is in `x-switchyard-cost` (USD) and in the request log.
 */
export function registerRerankRoutes(app: FastifyInstance, context: AppContext): void {
  const options = { schema: { body: { type: 'object' } }, config: { auth: 'key' } } as const;
  const handler = (request: FastifyRequest, reply: FastifyReply) => answerRerank(context, request, reply);
  app.post('/v1/rerank', options, handler);
  app.post('/v2/rerank', options, handler);
}

async function answerRerank(context: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const body = request.body as Record<string, unknown>;
  const principal = request.principal!;
  const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/rerank', body });
  const signal = abortOnClientClose(reply);
  let decoded: ReturnType<typeof decodeRerankRequest>;
  let outcome: Awaited<ReturnType<typeof rerankDocuments>>;
  try {
    decoded = decodeRerankRequest(body);
    outcome = await rerankDocuments(context, { principal, requestId: request.id, route: decoded.route, request: decoded.request, signal, record });
  } catch (error) {
    await record.failed(error);
    throw error;
  }
  const { candidate, result, cost } = outcome;
  record.settled(candidate, { usage: { promptTokens: result.tokens, completionTokens: 0, estimated: result.estimated }, cost, status: 'completed' });
  await record.admitted;
  return reply
    .header('x-switchyard-provider', candidate.provider.id)
    .header('x-switchyard-cost', String(nanoToUsd(cost)))
    .send(encodeRerankResponse({ id: request.id, model: candidate.model.id, request: decoded.request, result, returnDocuments: decoded.returnDocuments }));
}
