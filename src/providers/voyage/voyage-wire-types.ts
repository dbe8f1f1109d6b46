/**
 * Voyage's request and answer bodies, as its API reference gives them
 * (https://docs.voyageai.com/reference/embeddings-api, https://docs.voyageai.com/reference/reranker-api).
 * Answer fields are optional: they are read leniently.
 */
export interface VoyageEmbeddingsRequest {
  input: string[];
  model: string;
  /** null (the default): no prompt; `query` / `document` prepend Voyage's retrieval prompts. */
  input_type?: 'query' | 'document';
  output_dimension?: number;
}

export interface VoyageEmbeddingsResponse {
  object?: unknown;
  data?: unknown;
  model?: unknown;
  usage?: { total_tokens?: unknown };
}

export interface VoyageRerankRequest {
  query: string;
  documents: string[];
  model: string;
  top_k?: number;
  return_documents: false;
}

export interface VoyageRerankResponse {
  object?: unknown;
  data?: unknown;
  model?: unknown;
  usage?: { total_tokens?: unknown };
}
