import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { createEmbeddings } from '../../embeddings/create-embeddings.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { decodeEmbeddingRequest, type EmbeddingEncoding } from './decode-embedding-request.js';
import { encodeEmbeddingsResponse } from './encode-embeddings-response.js';

/**
 * POST /v1/embeddings in OpenAI's shape, for every embedding model of the catalog whatever its
 * provider. Priced as text: prompt tokens × the endpoint's prompt price, in `usage.cost`,
 * `x-switchyard-cost` (USD) and the request log.
 */
export function registerEmbeddingRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/embeddings', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const principal = request.principal!;
    const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/embeddings', body });
    const signal = abortOnClientClose(reply);
    let encoding: EmbeddingEncoding;
    let outcome: Awaited<ReturnType<typeof createEmbeddings>>;
    try {
      const decoded = decodeEmbeddingRequest(body);
      encoding = decoded.encoding;
      record.identify(decoded.request.user);
      outcome = await createEmbeddings(context, { principal, requestId: request.id, route: decoded.route, request: decoded.request, signal, record });
    } catch (error) {
      await record.failed(error);
      throw error;
    }
    await record.admitted;
    return reply
      .header('x-switchyard-provider', outcome.candidate.provider.id)
      .header('x-switchyard-cost', String(nanoToUsd(outcome.cost)))
      .send(encodeEmbeddingsResponse(outcome.result, outcome.candidate.model.id, encoding, outcome.cost));
  });
}
