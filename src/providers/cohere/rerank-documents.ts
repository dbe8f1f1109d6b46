import type { RerankResult } from '../../core/rerank-request.js';
import type { RerankAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { CohereRerankResponse } from './cohere-wire-types.js';
import { estimateCohereTokens } from './estimate-cohere-tokens.js';
import { postCohere } from './transport.js';

/**
 * Cohere rerank: POST {base}/v2/rerank `{model, query, documents, top_n, max_tokens_per_doc}`
 * answers `{id, results: [{index, relevance_score}], meta: {billed_units: {search_units}}}`.
 * Cohere counts no tokens for rerank; the row's tokens are the gateway's estimate.
 * https://docs.cohere.com/reference/rerank
 */
export const cohereRerankAdapter: RerankAdapter = {
  api: 'cohere',
  incapability: () => undefined,
  async rerank(request, context) {
    const body: Record<string, unknown> = { model: context.providerModel, query: request.query, documents: request.documents };
    if (request.topN !== undefined) body.top_n = request.topN;
    if (request.maxTokensPerDocument !== undefined) body.max_tokens_per_doc = request.maxTokensPerDocument;
    const answer = await postCohere<CohereRerankResponse>(context, 'rerank', body);
    return readRerankAnswer(context.provider.id, answer, request.documents.length, estimateCohereTokens([request.query, ...request.documents]));
  },
};

/** Reads Cohere's rerank answer; indexes outside the request or scores that are not numbers are a bad answer (502, retryable). */
export function readRerankAnswer(providerId: string, answer: CohereRerankResponse, documents: number, estimatedTokens: number): RerankResult {
  if (!Array.isArray(answer.results)) throw createProtocolError(providerId, 'answered a rerank without results', JSON.stringify(answer).slice(0, 500));
  const results = answer.results.map((entry) => {
    const { index, relevance_score: score } = entry ?? {};
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documents || typeof score !== 'number' || !Number.isFinite(score)) {
      throw createProtocolError(providerId, 'answered a rerank result without a valid index and relevance_score', JSON.stringify(entry).slice(0, 500));
    }
    return { index, relevanceScore: score };
  });
  const searches = answer.meta?.billed_units?.search_units;
  return { results, searches: typeof searches === 'number' && searches > 0 ? searches : 1, tokens: estimatedTokens, estimated: true };
}
