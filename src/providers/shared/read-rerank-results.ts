import type { RerankResult } from '../../core/rerank-request.js';
import { createProtocolError } from './create-protocol-error.js';

/**
 * Rerank results in the shape Cohere, Jina and Voyage share (`[{index, relevance_score}]`, best
 * first), checked against the request: every index names a document of the request, at most once.
 * Sorted again by score (stable), so that the answer is best first whatever the provider's order.
 */
export function readRerankResults(items: unknown, documentCount: number, providerId: string): RerankResult['results'] {
  const entries = Array.isArray(items) ? (items as Array<{ index?: unknown; relevance_score?: unknown } | null | undefined>) : [];
  const seen = new Set<number>();
  const results: RerankResult['results'] = [];
  for (const entry of entries) {
    const index = entry?.index;
    const score = entry?.relevance_score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documentCount || seen.has(index)) {
      throw createProtocolError(providerId, `answered a rerank result with index ${String(index)} for ${documentCount} documents`);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) throw createProtocolError(providerId, `answered a rerank result without a relevance_score`);
    seen.add(index);
    results.push({ index, relevanceScore: score });
  }
  return results.sort((left, right) => right.relevanceScore - left.relevanceScore);
}
