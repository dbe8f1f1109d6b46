import type { EmbeddingRequest, EmbeddingResult, EmbeddingTask } from '../../core/embedding-request.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import type { CallContext } from '../provider-adapter.js';
import { readEmbeddingList, readTokenCount } from '../shared/read-embedding-list.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { mapHttpError } from './map-error.js';
import { authorizationHeaders, voyageOperationUrl } from './transport.js';
import type { VoyageEmbeddingsRequest, VoyageEmbeddingsResponse } from './voyage-wire-types.js';

/**
 * Voyage's limits on one call (https://docs.voyageai.com/reference/embeddings-api): "The maximum
 * length of the list is 1,000", and "The total number of tokens in the list is at most 1M for
 * voyage-4-lite and voyage-3.5-lite; 320K for voyage-4, voyage-3.5 and voyage-2; and 120K for
 * voyage-4-large, voyage-3-large, voyage-code-3, voyage-finance-2, and voyage-law-2".
 */
export const voyageMaxInputsPerCall = 1000;
const tokenBoundByModel: Record<string, number> = {
  'voyage-4-lite': 1_000_000,
  'voyage-3.5-lite': 1_000_000,
  'voyage-4': 320_000,
  'voyage-3.5': 320_000,
  'voyage-2': 320_000,
};
/** The smallest bound Voyage lists, for the models it names with 120K and any it adds later. */
const defaultTokenBound = 120_000;
/**
 * Tokens an input may cost beyond its own bytes: the retrieval prompt `input_type` prepends ("Represent the
 * query for retrieving supporting documents: ") and the tokenizer's special tokens.
 */
const perInputOverheadTokens = 32;

/**
 * Voyage embeddings: POST {base}/embeddings with `input`, `model`, `input_type` and
 * `output_dimension`; answers `{object: "list", data: [{embedding, index}], model, usage:
 * {total_tokens}}` (https://docs.voyageai.com/reference/embeddings-api). Text only: Voyage takes
 * no token arrays. The vectors are asked for as floats (Voyage's default `output_dtype`).
 *
 * A request over Voyage's per-call token bound is split into several calls before it is sent.
 * The gateway has no Voyage tokenizer, so it counts an input's UTF-8 bytes (plus a margin for
 * the prompt and special tokens) as its tokens: subword tokens span at least a byte each in
 * practice, so each call stays under the bound; the calls' `total_tokens` add up.
 */
export const voyageEmbeddingAdapter: EmbeddingAdapter = {
  api: 'voyage',
  maxInputsPerCall: () => voyageMaxInputsPerCall,
  incapability(request) {
    if (request.inputs.some((input) => typeof input !== 'string')) return { field: 'input', reason: 'Voyage embeds text only, not token arrays' };
    return undefined;
  },
  async embed(request, context) {
    const inputs = request.inputs as string[];
    const bound = tokenBoundByModel[context.providerModel] ?? defaultTokenBound;
    const vectors: number[][] = [];
    let promptTokens = 0;
    let estimated = false;
    for (const batch of splitUnderTokenBound(inputs, bound)) {
      const result = await embedBatch(request, batch, context);
      vectors.push(...result.vectors);
      promptTokens += result.promptTokens;
      estimated ||= result.estimated;
    }
    return { vectors, promptTokens, estimated };
  },
};

async function embedBatch(request: EmbeddingRequest, inputs: string[], context: CallContext): Promise<EmbeddingResult> {
  const { provider } = context;
  const body: VoyageEmbeddingsRequest = { input: inputs, model: context.providerModel };
  const inputType = voyageInputType(request.task);
  if (inputType !== undefined) body.input_type = inputType;
  if (request.dimensions !== undefined) body.output_dimension = request.dimensions;
  let answer: VoyageEmbeddingsResponse;
  try {
    const response = await sendUpstream(context, voyageOperationUrl(provider, 'embeddings'), { method: 'POST', headers: await authorizationHeaders(provider), json: body });
    answer = await readJsonObject<VoyageEmbeddingsResponse>(provider.id, response);
  } catch (error) {
    throw mapHttpError(error);
  }
  const vectors = readEmbeddingList(answer.data, inputs.length, provider.id);
  const tokens = readTokenCount(answer.usage?.total_tokens);
  return tokens === undefined ? { vectors, promptTokens: 0, estimated: true } : { vectors, promptTokens: tokens, estimated: false };
}

/**
 * Voyage's `input_type` has two values: `query` for what searches ("Represent the query for
 * retrieving supporting documents: ") and `document` for what is searched; null embeds the text
 * as it is, which suits the symmetric tasks (similarity, classification, clustering).
 */
export function voyageInputType(task: EmbeddingTask | undefined): 'query' | 'document' | undefined {
  switch (task) {
    case 'retrieval_query':
    case 'question_answering':
    case 'fact_verification':
    case 'code_retrieval_query':
      return 'query';
    case 'retrieval_document':
      return 'document';
    default:
      return undefined;
  }
}

/** Consecutive runs of inputs whose token upper bound stays under `bound` (an input alone over it goes alone: Voyage truncates it). */
export function splitUnderTokenBound(inputs: string[], bound: number): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let tokens = 0;
  for (const input of inputs) {
    const cost = Buffer.byteLength(input, 'utf8') + perInputOverheadTokens;
    if (batch.length > 0 && tokens + cost > bound) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(input);
    tokens += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
