import type { EmbeddingRequest, EmbeddingTask } from '../../core/embedding-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';

const embedFields = new Set(['model', 'models', 'provider', 'texts', 'input_type', 'embedding_types', 'output_dimension']);

/** Cohere's `input_type` values for text (https://docs.cohere.com/reference/embed) and the canonical task of each. */
const tasks: Record<string, EmbeddingTask> = {
  search_document: 'retrieval_document',
  search_query: 'retrieval_query',
  classification: 'classification',
  clustering: 'clustering',
};

/** The most texts one request may carry: as many as OpenAI's `/embeddings` takes; the gateway splits them per provider. */
const maxTexts = 2048;

/**
 * Reads Cohere's `POST /v2/embed` body (what `cohere-ai`'s `embed` sends) into the canonical
 * request. Text only, float vectors only (`embedding_types` other than `float` are refused, as are
 * `images`, `inputs` and `truncate`: each named). `input_type` becomes the task, so a Cohere
 * endpoint gets it back unchanged.
 */
export function decodeCohereEmbedRequest(body: Record<string, unknown>): { route: RouteRequest; request: EmbeddingRequest } {
  for (const name of Object.keys(body)) {
    if (!embedFields.has(name)) throw unsupportedParameter(name);
  }
  const route = decodeRouteRequest(body);
  const { texts, input_type: inputType, embedding_types: types, output_dimension: dimension } = body;
  if (!Array.isArray(texts) || texts.length === 0) throw invalidRequest("'texts' is required: a non-empty array of strings", 'texts');
  if (texts.length > maxTexts) throw invalidRequest(`'texts' may hold at most ${maxTexts} texts`, 'texts');
  texts.forEach((text, index) => {
    if (typeof text !== 'string') throw invalidRequest(`'texts[${index}]' must be a string`, `texts[${index}]`);
  });
  const request: EmbeddingRequest = { inputs: texts as string[] };
  if (inputType !== undefined) {
    if (typeof inputType !== 'string' || tasks[inputType] === undefined) throw invalidRequest(`'input_type' must be one of ${Object.keys(tasks).join(', ')}`, 'input_type');
    request.task = tasks[inputType];
  }
  if (types !== undefined && (!Array.isArray(types) || types.length === 0 || types.some((type) => type !== 'float'))) {
    throw invalidRequest("'embedding_types' must be [\"float\"]: the gateway answers float vectors only", 'embedding_types');
  }
  if (dimension !== undefined) {
    if (typeof dimension !== 'number' || !Number.isInteger(dimension) || dimension < 1) throw invalidRequest("'output_dimension' must be a positive integer", 'output_dimension');
    request.dimensions = dimension;
  }
  return { route, request };
}
