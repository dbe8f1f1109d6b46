import type { RerankAdapter } from '../retrieval-adapter.js';
import { readTokenCount } from '../shared/read-embedding-list.js';
import { readRerankResults } from '../shared/read-rerank-results.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import type { JinaRerankRequest, JinaRerankResponse } from './jina-wire-types.js';
import { mapHttpError } from './map-error.js';
import { authorizationHeaders, jinaOperationUrl } from './transport.js';

/**
 * Jina rerank: POST {base}/rerank with `model`, `query`, `documents` (strings), `top_n` and
 * `return_documents` (Jina's default true, asked false: the gateway has the documents); answers
 * `{model, usage: {total_tokens}, results: [{index, relevance_score, document?: {text}}]}`, best
 * first (https://jina.ai/reranker/; the schema in Jina's API guide, jina-ai/meta-prompt). Jina
 * bills the tokens it reports in `usage.total_tokens`; one search. It takes no per-document
 * token cap.
 */
export const jinaRerankAdapter: RerankAdapter = {
  api: 'jina',
  incapability(request) {
    if (request.maxTokensPerDocument !== undefined) return { field: 'max_tokens_per_doc', reason: 'Jina rerank takes no per-document token limit' };
    return undefined;
  },
  async rerank(request, context) {
    const { provider } = context;
    const body: JinaRerankRequest = { model: context.providerModel, query: request.query, documents: request.documents, return_documents: false };
    if (request.topN !== undefined) body.top_n = request.topN;
    let answer: JinaRerankResponse;
    try {
      const response = await sendUpstream(context, jinaOperationUrl(provider, 'rerank'), { method: 'POST', headers: await authorizationHeaders(provider), json: body });
      answer = await readJsonObject<JinaRerankResponse>(provider.id, response);
    } catch (error) {
      throw mapHttpError(error);
    }
    const results = readRerankResults(answer.results, request.documents.length, provider.id);
    const tokens = readTokenCount(answer.usage?.total_tokens) ?? readTokenCount(answer.usage?.prompt_tokens);
    return tokens === undefined ? { results, searches: 1, tokens: 0, estimated: true } : { results, searches: 1, tokens, estimated: false };
  },
};
