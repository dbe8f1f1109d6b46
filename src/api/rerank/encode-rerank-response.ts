import type { RerankRequest, RerankResult } from '../../core/rerank-request.js';

/**
 * The answer in Cohere's v2 shape (https://docs.cohere.com/reference/rerank), which Jina and
 * Voyage share: results best first, at most `top_n`, each with its document when asked; `usage`
 * with the searches billed and the tokens when the provider counted them; and Cohere's own
 * `meta.billed_units`, which Cohere's SDK reads.
 */
export function encodeRerankResponse(input: { id: string; model: string; request: RerankRequest; result: RerankResult; returnDocuments: boolean }): Record<string, unknown> {
  const { request, result } = input;
  const best = [...result.results].sort((a, b) => b.relevanceScore - a.relevanceScore).slice(0, request.topN ?? result.results.length);
  const results = best.map((entry) => {
    const encoded: Record<string, unknown> = { index: entry.index, relevance_score: entry.relevanceScore };
    if (input.returnDocuments) encoded.document = { text: request.documents[entry.index] };
    return encoded;
  });
  const usage: Record<string, number> = { search_units: result.searches };
  if (!result.estimated) usage.total_tokens = result.tokens;
  return { id: input.id, model: input.model, results, usage, meta: { api_version: { version: '2' }, billed_units: { search_units: result.searches } } };
}
