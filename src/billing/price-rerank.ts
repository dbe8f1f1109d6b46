import type { EndpointPricing } from '../config/types.js';
import { costOfUnits } from '../core/money.js';

/** What a rerank call was billed for: searches (Cohere's search units, Bedrock's queries) and tokens (Jina, Voyage). */
export interface RerankUnits {
  searches: number;
  tokens: number;
}

/**
 * A rerank's price: searches at `pricing.search` (USD per search) plus tokens at `pricing.prompt`
 * (per 1M tokens), plus any per-request price. An endpoint prices one or the other; the other is
 * zero. The reservation (the most the call can cost) and the settlement (what the provider
 * billed) both come from here, so the two follow one rule.
 */
export function priceRerank(pricing: EndpointPricing, units: RerankUnits): bigint {
  return BigInt(units.searches) * (pricing.search ?? 0n) + costOfUnits(units.tokens, pricing.prompt) + (pricing.request ?? 0n);
}
