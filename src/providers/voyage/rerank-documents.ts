import type { RerankAdapter } from '../retrieval-adapter.js';
import { readTokenCount } from '../shared/read-embedding-list.js';
import { readRerankResults } from '../shared/read-rerank-results.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { mapHttpError } from './map-error.js';
import { authorizationHeaders, voyageOperationUrl } from './transport.js';
import type { VoyageRerankRequest, VoyageRerankResponse } from './voyage-wire-types.js';

/**
 * Voyage rerank: POST {base}/rerank with `query`, `documents` (strings), `model`, `top_k` and
 * `return_documents`; answers `{object: "list", data: [{relevance_score, index, document?}],
 * model, usage: {total_tokens}}`, best first (https://docs.voyageai.com/reference/reranker-api).
 * Documents are not asked back: the gateway has them. Voyage bills tokens ("the number of query
 * tokens × the number of documents + sum of the number of tokens in all documents"), reported
 * in `usage.total_tokens`; one search. Voyage truncates over-long documents to the model's
 * context itself (`truncation`, default true) but takes no per-document token cap.
 */
export const voyageRerankAdapter: RerankAdapter = {
  api: 'voyage',
  incapability(request) {
    if (request.maxTokensPerDocument !== undefined) return { field: 'max_tokens_per_doc', reason: 'Voyage rerank takes no per-document token limit' };
    return undefined;
  },
  async rerank(request, context) {
    const { provider } = context;
    const body: VoyageRerankRequest = { query: request.query, documents: request.documents, model: context.providerModel, return_documents: false };
    if (request.topN !== undefined) body.top_k = request.topN;
    let answer: VoyageRerankResponse;
    try {
      const response = await sendUpstream(context, voyageOperationUrl(provider, 'rerank'), { method: 'POST', headers: await authorizationHeaders(provider), json: body });
      answer = await readJsonObject<VoyageRerankResponse>(provider.id, response);
    } catch (error) {
      throw mapHttpError(error);
    }
    const results = readRerankResults(answer.data, request.documents.length, provider.id);
    const tokens = readTokenCount(answer.usage?.total_tokens);
    return tokens === undefined ? { results, searches: 1, tokens: 0, estimated: true } : { results, searches: 1, tokens, estimated: false };
  },
};
