import type { EmbeddingTask } from '../../core/embedding-request.js';
import type { EmbeddingAdapter } from '../retrieval-adapter.js';
import { readEmbeddingList, readTokenCount } from '../shared/read-embedding-list.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import type { JinaEmbeddingsRequest, JinaEmbeddingsResponse, JinaTask } from './jina-wire-types.js';
import { mapHttpError } from './map-error.js';
import { authorizationHeaders, jinaOperationUrl } from './transport.js';

/**
 * Jina's references name no count limit for `input`; 2,048 inputs (OpenAI's limit, whose request
 * shape Jina's endpoint follows) keeps each call within its 8,192-token inputs and per-minute
 * token limits' reach without relying on an undocumented larger batch.
 */
export const jinaMaxInputsPerCall = 2048;

/**
 * Jina embeddings: POST {base}/embeddings with `model`, `input` (strings), `task`, `dimensions`
 * and `embedding_type`; answers an OpenAI-like list `{model, object: "list", data: [{object:
 * "embedding", index, embedding}], usage: {total_tokens, prompt_tokens}}`
 * (https://jina.ai/embeddings/; the request schema in Jina's API guide, jina-ai/meta-prompt).
 * `dimensions` truncates the Matryoshka vectors of jina-embeddings-v3. Text only: Jina takes no
 * token arrays.
 */
export const jinaEmbeddingAdapter: EmbeddingAdapter = {
  api: 'jina',
  maxInputsPerCall: () => jinaMaxInputsPerCall,
  incapability(request) {
    if (request.inputs.some((input) => typeof input !== 'string')) return { field: 'input', reason: 'Jina embeds text only, not token arrays' };
    return undefined;
  },
  async embed(request, context) {
    const { provider } = context;
    const body: JinaEmbeddingsRequest = { model: context.providerModel, input: request.inputs as string[], embedding_type: 'float' };
    const task = jinaTask(request.task);
    if (task !== undefined) body.task = task;
    if (request.dimensions !== undefined) body.dimensions = request.dimensions;
    let answer: JinaEmbeddingsResponse;
    try {
      const response = await sendUpstream(context, jinaOperationUrl(provider, 'embeddings'), { method: 'POST', headers: await authorizationHeaders(provider), json: body });
      answer = await readJsonObject<JinaEmbeddingsResponse>(provider.id, response);
    } catch (error) {
      throw mapHttpError(error);
    }
    const vectors = readEmbeddingList(answer.data, request.inputs.length, provider.id);
    const tokens = readTokenCount(answer.usage?.total_tokens) ?? readTokenCount(answer.usage?.prompt_tokens);
    return tokens === undefined ? { vectors, promptTokens: 0, estimated: true } : { vectors, promptTokens: tokens, estimated: false };
  },
};

/**
 * jina-embeddings-v3's task adapters: `retrieval.query` / `retrieval.passage` for the two sides
 * of a search, `text-matching` for symmetric similarity, `classification`, and `separation` for
 * clustering. Absent: Jina's default (no adapter).
 */
export function jinaTask(task: EmbeddingTask | undefined): JinaTask | undefined {
  switch (task) {
    case 'retrieval_query':
    case 'question_answering':
    case 'fact_verification':
    case 'code_retrieval_query':
      return 'retrieval.query';
    case 'retrieval_document':
      return 'retrieval.passage';
    case 'semantic_similarity':
      return 'text-matching';
    case 'classification':
      return 'classification';
    case 'clustering':
      return 'separation';
    default:
      return undefined;
  }
}
