/**
 * Jina's request and answer bodies, as its API gives them (https://jina.ai/embeddings/,
 * https://jina.ai/reranker/, https://api.jina.ai/openapi.json). Answer fields are optional: they
 * are read leniently.
 */
export type JinaTask = 'retrieval.query' | 'retrieval.passage' | 'text-matching' | 'classification' | 'separation';

export interface JinaEmbeddingsRequest {
  model: string;
  input: string[];
  /** `float` (Jina's default), said outright: the gateway reads numbers only. */
  embedding_type: 'float';
  task?: JinaTask;
  dimensions?: number;
}

export interface JinaEmbeddingsResponse {
  model?: unknown;
  object?: unknown;
  data?: unknown;
  usage?: { total_tokens?: unknown; prompt_tokens?: unknown };
}

export interface JinaRerankRequest {
  model: string;
  query: string;
  documents: string[];
  top_n?: number;
  /** Jina's default is true; the gateway has the documents. */
  return_documents: false;
}

export interface JinaRerankResponse {
  model?: unknown;
  results?: unknown;
  usage?: { total_tokens?: unknown; prompt_tokens?: unknown };
}
