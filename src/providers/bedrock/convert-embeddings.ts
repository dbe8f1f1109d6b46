import type { EmbeddingRequest, EmbeddingTask } from '../../core/embedding-request.js';
import type { Incapability } from '../media-adapter.js';

/**
 * Bedrock's embedding models each take their vendor's own InvokeModel body, told apart by the
 * model id — a foundation model (`amazon.titan-embed-text-v2:0`), a cross-region inference
 * profile (`us.cohere.embed-v4:0`) or an ARN ending in either.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 */
export type BedrockEmbeddingFamily = 'titan-v2' | 'titan-v1' | 'cohere-v3' | 'cohere-v4';

export function bedrockEmbeddingFamily(modelId: string): BedrockEmbeddingFamily | undefined {
  const id = modelId.toLowerCase();
  if (id.includes('amazon.titan-embed-text-v2')) return 'titan-v2';
  if (id.includes('amazon.titan-embed-text-v1') || id.includes('amazon.titan-embed-g1-text')) return 'titan-v1';
  if (id.includes('cohere.embed-v4')) return 'cohere-v4';
  if (id.includes('cohere.embed-')) return 'cohere-v3';
  return undefined;
}

/**
 * Texts per InvokeModel call: Titan embeds one `inputText`; Cohere Embed takes up to 96 `texts`.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v3.html
 */
export const cohereMaxTextsPerCall = 96;

/** The vector sizes each family can answer (the first is its default). */
const familyDimensions: Record<BedrockEmbeddingFamily, readonly number[]> = {
  // Titan Text Embeddings v2: `dimensions` 1024 (default), 512 or 256.
  'titan-v2': [1024, 512, 256],
  'titan-v1': [1536],
  // Embed English / Multilingual v3 answer 1024 floats; Embed v4's `output_dimension` is 256, 512, 1024 or 1536 (default).
  'cohere-v3': [1024],
  'cohere-v4': [1536, 1024, 512, 256],
};

export function bedrockEmbeddingIncapability(request: EmbeddingRequest, modelId: string): Incapability | undefined {
  const family = bedrockEmbeddingFamily(modelId);
  if (!family) return { field: 'model', reason: `${modelId} is not an embedding model the gateway knows on Bedrock (Titan Text Embeddings, Cohere Embed)` };
  if (request.inputs.some((input) => typeof input !== 'string')) return { field: 'input', reason: 'Bedrock embedding models take text, not token arrays' };
  if (request.inputs.some((input) => input === '')) return { field: 'input', reason: 'Bedrock embedding models refuse an empty text' };
  const sizes = familyDimensions[family];
  if (request.dimensions !== undefined && !sizes.includes(request.dimensions)) {
    return { field: 'dimensions', reason: `${modelId} answers vectors of ${sizes.join(', ')} dimensions` };
  }
  return undefined;
}

/**
 * Titan Text Embeddings: `{inputText}` and, on v2, `dimensions` and `normalize` (true: unit
 * vectors, as OpenAI's and Cohere's are, so that a dot product is the cosine). The answer is
 * `{embedding, inputTextTokenCount}`.
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 */
export function titanEmbeddingBody(text: string, family: 'titan-v2' | 'titan-v1', dimensions: number | undefined): Record<string, unknown> {
  if (family === 'titan-v1') return { inputText: text };
  return { inputText: text, ...(dimensions !== undefined && { dimensions }), normalize: true };
}

export interface TitanEmbeddingAnswer {
  embedding?: unknown;
  inputTextTokenCount?: unknown;
}

/**
 * Cohere Embed on Bedrock: `{texts, input_type, truncate, embedding_types}`. `input_type` is
 * required by the v3 and v4 models; the canonical `task` picks it (absent: `search_document`, what
 * a text stored for retrieval needs). `truncate: "NONE"` makes a text longer than the model's
 * window an error, as on OpenAI's wire, instead of a vector of part of it. With
 * `embedding_types: ["float"]` the answer is `{embeddings: {float: [[…]]}, response_type:
 * "embeddings_by_type"}`; it carries no token count (Bedrock's `X-Amzn-Bedrock-Input-Token-Count`
 * header does).
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v3.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed-v4.html
 */
export function cohereEmbeddingBody(texts: string[], family: 'cohere-v3' | 'cohere-v4', request: Pick<EmbeddingRequest, 'task' | 'dimensions'>): Record<string, unknown> {
  return {
    texts,
    input_type: cohereInputType(request.task),
    truncate: 'NONE',
    embedding_types: ['float'],
    ...(family === 'cohere-v4' && request.dimensions !== undefined && { output_dimension: request.dimensions }),
  };
}

/**
 * Cohere's four input types, for the canonical task: the same choice as on Cohere's own API
 * (`providers/cohere/create-embeddings.ts`), the models being the same. Symmetric similarity
 * compares like with like, as clustering does; the question-style tasks embed a query; absent,
 * a document. https://docs.cohere.com/docs/embeddings#the-input_type-parameter
 */
export function cohereInputType(task: EmbeddingTask | undefined): 'search_query' | 'search_document' | 'classification' | 'clustering' {
  switch (task) {
    case 'retrieval_query':
    case 'question_answering':
    case 'fact_verification':
    case 'code_retrieval_query':
      return 'search_query';
    case 'classification':
      return 'classification';
    case 'clustering':
    case 'semantic_similarity':
      return 'clustering';
    default:
      return 'search_document';
  }
}

export interface CohereEmbeddingAnswer {
  embeddings?: unknown;
  response_type?: unknown;
}

/** The float vectors of a Cohere answer, in `embeddings_by_type` (`{float: [...]}`) or `embeddings_floats` (`[...]`) form. */
export function readCohereVectors(answer: CohereEmbeddingAnswer): unknown {
  const { embeddings } = answer;
  if (Array.isArray(embeddings)) return embeddings;
  if (typeof embeddings === 'object' && embeddings !== null) return (embeddings as { float?: unknown }).float;
  return undefined;
}

export function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number' && Number.isFinite(item));
}

/**
 * A token estimate for a provider that reports none: one token per four UTF-8 bytes, English's
 * usual ratio, at least one per text. Marked `estimated` wherever it is used.
 */
export function estimateTextTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Math.max(1, Math.ceil(Buffer.byteLength(text) / 4)), 0);
}
