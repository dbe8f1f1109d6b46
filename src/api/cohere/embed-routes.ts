import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { createEmbeddings } from '../../embeddings/create-embeddings.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { decodeCohereEmbedRequest } from './decode-cohere-embed-request.js';

/**
 * POST /v2/embed in Cohere's shape (https://docs.cohere.com/reference/embed), the path Cohere's
 * own SDK (`cohere-ai`'s CohereClientV2) calls under its base URL: every embedding model of the
 * catalog, whatever its provider, as `/v1/embeddings` serves them. Answers
 * `{id, embeddings: {float}, texts, meta: {billed_units: {input_tokens}}, response_type}`; priced
 * as text, in `x-switchyard-cost` (USD) and the request log (endpoint `/embeddings`).
 */
export function registerCohereEmbedRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v2/embed', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const principal = request.principal!;
    const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/embeddings', body });
    const signal = abortOnClientClose(reply);
    let texts: string[];
    let outcome: Awaited<ReturnType<typeof createEmbeddings>>;
    try {
      const decoded = decodeCohereEmbedRequest(body);
      texts = decoded.request.inputs as string[];
      outcome = await createEmbeddings(context, { principal, requestId: request.id, route: decoded.route, request: decoded.request, signal, record });
    } catch (error) {
      await record.failed(error);
      throw error;
    }
    await record.admitted;
    const { result } = outcome;
    return reply
      .header('x-switchyard-provider', outcome.candidate.provider.id)
      .header('x-switchyard-cost', String(nanoToUsd(outcome.cost)))
      .send({
        id: request.id,
        embeddings: { float: result.vectors },
        texts,
        meta: { api_version: { version: '2' }, billed_units: { input_tokens: result.promptTokens } },
        response_type: 'embeddings_by_type',
      });
  });
}
