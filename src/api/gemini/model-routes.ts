import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { apiEndpointsOf } from '../../catalog/catalog.js';
import type { ModelConfig } from '../../config/types.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { isAbsent } from '../shared/read-json-fields.js';
import { decodeModel } from './read-model-action.js';

/**
 * A model as Gemini's `Model` (https://ai.google.dev/api/models#Model): `name` is
 * `models/{id}`, the limits are the catalog's, and the methods are the ones this style serves for
 * it — the text methods, and for an embedding model `embedContent` and `batchEmbedContents`
 * (with its input limit per text, as Google lists gemini-embedding-001's).
 */
function encodeGeminiModel(model: ModelConfig): Record<string, unknown> {
  const endpoints = apiEndpointsOf(model);
  const text = endpoints.includes('chat');
  const outputLimit = Math.max(0, ...model.endpoints.map((endpoint) => endpoint.maxCompletionTokens ?? 0));
  const methods = [...(text ? ['generateContent', 'streamGenerateContent', 'countTokens'] : []), ...(endpoints.includes('embeddings') ? ['embedContent', 'batchEmbedContents'] : [])];
  const encoded: Record<string, unknown> = {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: String(model.created),
    displayName: model.name,
    description: model.description,
    supportedGenerationMethods: methods,
  };
  if (text) encoded.thinking = model.endpoints.some((endpoint) => endpoint.supportedParameters.includes('reasoning'));
  const inputLimit = text ? model.contextLength : (model.embedding?.maxInputTokens ?? model.contextLength);
  if (inputLimit !== null) encoded.inputTokenLimit = inputLimit;
  if (outputLimit > 0) encoded.outputTokenLimit = outputLimit;
  return encoded;
}

const maxPageSize = 1000;

/**
 * `GET /v1beta/models` (`{models, nextPageToken}`, `pageSize` default 50 as Google's, `pageToken`)
 * and `GET /v1beta/models/{model}`: the text and embedding models, in Gemini's shape. Only under `/v1beta`:
 * `/v1/models` is the OpenRouter-shaped catalog.
 */
export function registerGeminiModelRoutes(app: FastifyInstance, context: AppContext, config: object): void {
  const listed = context.catalog.models.filter((model) => apiEndpointsOf(model).some((endpoint) => endpoint === 'chat' || endpoint === 'embeddings'));
  const encoded = new Map(listed.map((model) => [model.id, encodeGeminiModel(model)]));

  app.get<{ Querystring: { pageSize?: string; pageToken?: string } }>('/v1beta/models', { config }, async (request) => {
    const { pageSize, pageToken } = request.query;
    const size = isAbsent(pageSize) ? 50 : Number(pageSize);
    if (!Number.isSafeInteger(size) || size < 0) throw new GatewayError('invalid_request', "'pageSize' must be a non-negative integer", { param: 'pageSize' });
    const start = isAbsent(pageToken) || pageToken === '' ? 0 : listed.findIndex((model) => model.id === pageToken) + 1;
    const page = listed.slice(start, start + Math.min(size === 0 ? 50 : size, maxPageSize));
    const end = start + page.length;
    return { models: page.map((model) => encoded.get(model.id)), ...(end < listed.length && page.length > 0 && { nextPageToken: page[page.length - 1].id }) };
  });

  app.get('/v1beta/models/*', { config }, async (request) => {
    const id = decodeModel((request.params as { '*': string })['*']);
    const model = encoded.get(id);
    if (!model) throw new GatewayError('not_found', `Model 'models/${id}' not found: GET /v1beta/models lists the text and embedding models`);
    return model;
  });
}
