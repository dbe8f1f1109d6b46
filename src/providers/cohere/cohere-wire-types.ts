/** Cohere's v2 answers as far as the gateway reads them (https://docs.cohere.com/reference/rerank, https://docs.cohere.com/reference/embed). */
export interface CohereBilledUnits {
  input_tokens?: number;
  output_tokens?: number;
  search_units?: number;
  classifications?: number;
  images?: number;
}

export interface CohereMeta {
  api_version?: { version?: string };
  billed_units?: CohereBilledUnits;
  warnings?: string[];
}

export interface CohereRerankResponse {
  id?: string;
  results?: { index?: unknown; relevance_score?: unknown }[];
  meta?: CohereMeta;
}

export interface CohereEmbedResponse {
  id?: string;
  embeddings?: { float?: unknown };
  texts?: string[];
  meta?: CohereMeta;
  response_type?: string;
}
