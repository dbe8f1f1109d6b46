import type { EmbeddingTask } from '../../core/embedding-request.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import type { CohereEmbedResponse } from './cohere-wire-types.js';
import { estimateCohereTokens } from './estimate-cohere-tokens.js';
import { postCohere } from './transport.js';

/** Cohere embeds at most 96 texts per call (https://docs.cohere.com/reference/embed, `texts`). */
const maxTextsPerCall = 96;

/**
 * Cohere's `input_type`, required by embed v3 and later: the canonical task's nearest. Cohere has
 * `search_document`, `search_query`, `classification` and `clustering`; symmetric similarity
 * compares like with like, as clustering does; the question-style tasks embed a query.
 * https://docs.cohere.com/docs/embeddings#the-input_type-parameter
 */
const inputTypes: Record<EmbeddingTask, string> = {
  retrieval_document: 'search_document',
  retrieval_query: 'search_query',
  question_answering: 'search_query',
  fact_verification: 'search_query',
  code_retrieval_query: 'search_query',
  classification: 'classification',
  clustering: 'clustering',
  semantic_similarity: 'clustering',
};

/** Embed v4 takes `output_dimension` (256, 512, 1024 or 1536); v3 models answer their own size only. */
function takesOutputDimension(providerModel: string): boolean {
  return /^embed-v4/.test(providerModel);
}

/**
 * Cohere embeddings: POST {base}/v2/embed `{model, texts, input_type, embedding_types: ['float'],
 * output_dimension?}` answers `{embeddings: {float: [[…]]}, meta: {billed_units: {input_tokens}}}`.
 * The default `input_type` is `search_document` (what an OpenAI-style client, which names no task,
 * most often embeds). https://docs.cohere.com/reference/embed
 */
export const cohereEmbeddingAdapter: EmbeddingAdapter = {
  api: 'cohere',
  maxInputsPerCall: () => maxTextsPerCall,
  incapability(request) {
    if (request.inputs.some((input) => typeof input !== 'string')) return { field: 'input', reason: 'must be text for Cohere models (Cohere takes no token arrays)' };
    return undefined;
  },
  async embed(request, context) {
    const texts = request.inputs as string[];
    const body: Record<string, unknown> = {
      model: context.providerModel,
      texts,
      input_type: inputTypes[request.task ?? 'retrieval_document'],
      embedding_types: ['float'],
    };
    // The catalog's `embedding.output_dimensions` decides which sizes a model takes (routing refuses
    // the others); an earlier model answers only its own size, which then is the size asked for.
    if (request.dimensions !== undefined && takesOutputDimension(context.providerModel)) body.output_dimension = request.dimensions;
    const answer = await postCohere<CohereEmbedResponse>(context, 'embed', body);
    const vectors = answer.embeddings?.float;
    if (!Array.isArray(vectors) || vectors.length !== texts.length || !vectors.every((vector) => Array.isArray(vector) && vector.every((value) => typeof value === 'number'))) {
      throw createProtocolError(context.provider.id, `answered an embed without ${texts.length} float vectors`, JSON.stringify(answer).slice(0, 500));
    }
    const tokens = answer.meta?.billed_units?.input_tokens;
    if (typeof tokens === 'number' && tokens >= 0) return { vectors: vectors as number[][], promptTokens: tokens, estimated: false };
    return { vectors: vectors as number[][], promptTokens: estimateCohereTokens(texts), estimated: true };
  },
};
