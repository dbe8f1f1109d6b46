/** Rerank (contract §9: Cohere's v2 shape), as the inbound route and every provider protocol see it. */
export interface RerankRequest {
  query: string;
  documents: string[];
  /** How many of the best results to answer; absent: all. */
  topN?: number;
  /** Longest document in tokens, where a protocol can truncate (Cohere's `max_tokens_per_doc`). */
  maxTokensPerDocument?: number;
}

export interface RerankResult {
  /** Best first; `index` is the document's position in the request. */
  results: { index: number; relevanceScore: number }[];
  /** Searches the provider billed (Cohere's `search_units`); 1 when it reports none. */
  searches: number;
  /** Tokens the provider counted (Jina, Voyage), or the gateway's estimate (`estimated`). */
  tokens: number;
  estimated: boolean;
}
