/**
 * Embeddings, as every inbound style (OpenAI's `/embeddings`, Gemini's `embedContent` and
 * `batchEmbedContents`) and every provider protocol sees them.
 */

/** One input: text, or the tokens of a text (OpenAI's token arrays; only protocols that take tokens accept them). */
export type EmbeddingInput = string | readonly number[];

/**
 * What the vectors are for, where a vendor tunes them for it (Gemini's `taskType`, Cohere's
 * `input_type`, Voyage's `input_type`); absent: the vendor's default.
 */
export type EmbeddingTask =
  | 'retrieval_query'
  | 'retrieval_document'
  | 'semantic_similarity'
  | 'classification'
  | 'clustering'
  | 'question_answering'
  | 'fact_verification'
  | 'code_retrieval_query';

export interface EmbeddingRequest {
  inputs: EmbeddingInput[];
  /** The size of the vectors asked for; absent: the model's own. */
  dimensions?: number;
  task?: EmbeddingTask;
  /** Gemini's `title`, for `retrieval_document`. */
  title?: string;
  /** The end user, forwarded where the protocol has a field for it. */
  user?: string;
}

export interface EmbeddingResult {
  /** One vector per input, in input order. */
  vectors: number[][];
  /** Input tokens, as the provider counted them, or as the gateway estimated them (`estimated`). */
  promptTokens: number;
  estimated: boolean;
}
