import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { apiEndpointsOf, developerOf, isEndpointAvailable } from '../../catalog/catalog.js';
import type { ModelConfig } from '../../config/types.js';
import { notFound } from '../../errors/gateway-error.js';
import { encodeModel, encodePricing } from './encode-model.js';

const ModelFilters = Type.Object(
  {
    author: Type.Optional(Type.String()),
    output_modalities: Type.Optional(Type.String({ description: 'comma-separated: text, image, audio, video, embeddings, rerank, moderation, or all' })),
    free: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(Type.String()),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

interface ModelFilterQuery {
  author?: string;
  output_modalities?: string;
  free?: boolean;
  limit?: number;
  cursor?: string;
  offset?: number;
}

/**
 * Public catalog endpoints (docs/api-decisions.md §3). The catalog is immutable while the process runs, so
 * every model's JSON is encoded once here and filtering is a pass over a short array.
 */
export function registerCatalogRoutes(app: FastifyInstance, context: AppContext): void {
  const { catalog } = context;
  const encoded = new Map(catalog.models.map((model) => [model.id, encodeModel(catalog, model)]));
  const filter = (query: ModelFilterQuery): ModelConfig[] => {
    const outputs = query.output_modalities?.split(',').map((entry) => entry.trim()).filter(Boolean) ?? [];
    return catalog.models.filter(
      (model) =>
        (query.author === undefined || developerOf(model.id) === query.author) &&
        (query.free === undefined || model.free === query.free) &&
        (outputs.length === 0 || outputs.includes('all') || outputs.some((output) => model.outputModalities.includes(output as never))),
    );
  };
  const config = { auth: 'optional' as const };

  app.get<{ Querystring: ModelFilterQuery }>('/v1/models', { schema: { querystring: ModelFilters }, config }, async (request) => {
    const { query } = request;
    const models = filter(query);
    // The whole catalog by default (OpenRouter's behaviour); `limit` with `cursor` (ours) or
    // `offset` (OpenRouter's) pages through it.
    const start = query.cursor ? models.findIndex((model) => model.id === query.cursor) + 1 : (query.offset ?? 0);
    const limit = query.limit ?? models.length;
    const page = models.slice(start, start + limit);
    const more = start + limit < models.length;
    const base = publicBaseUrl(request);
    return {
      // OpenAI's list (`ListModelsResponse`) and OpenRouter's in one object.
      object: 'list',
      data: page.map((model) => ({ ...encoded.get(model.id), links: modelLinks(base, model.id) })),
      next_cursor: more && page.length > 0 ? page[page.length - 1].id : null,
      // OpenRouter's SDK requires both: the next page's URL (or null) and the filtered total.
      links: { next: more ? nextPageUrl(base, request.url, start + limit, limit) : null },
      total_count: models.length,
    };
  });

  // OpenAI's `models.retrieve(id)`: the SDK sends the id as one path segment (`a%2Fb`), others as two.
  const retrieve = (id: string, base: string) => {
    const model = catalog.modelById.get(id);
    if (!model) throw notFound(`Model '${id}'`);
    return { ...encoded.get(model.id), links: modelLinks(base, model.id) };
  };
  app.get<{ Params: { developer: string; model: string } }>('/v1/models/:developer/:model', { config }, async (request) =>
    retrieve(`${request.params.developer}/${request.params.model}`, publicBaseUrl(request)),
  );
  app.get<{ Params: { id: string } }>('/v1/models/:id', { config }, async (request) => retrieve(request.params.id, publicBaseUrl(request)));

  app.get<{ Querystring: ModelFilterQuery }>('/v1/models/count', { schema: { querystring: ModelFilters }, config }, async (request) => ({
    data: { count: filter(request.query).length },
  }));

  app.get('/v1/model-authors', { config }, async () => {
    const authors = new Map<string, { id: string; name: string; model_count: number }>();
    for (const model of catalog.models) {
      const id = developerOf(model.id);
      const author = authors.get(id) ?? { id, name: authorName(model), model_count: 0 };
      author.model_count += 1;
      authors.set(id, author);
    }
    return { data: [...authors.values()].sort((a, b) => a.id.localeCompare(b.id)), next_cursor: null };
  });

  app.get<{ Params: { developer: string; model: string } }>('/v1/models/:developer/:model/endpoints', { config }, async (request) => {
    const model = catalog.modelById.get(`${request.params.developer}/${request.params.model}`);
    if (!model) throw notFound(`Model '${request.params.developer}/${request.params.model}'`);
    return {
      data: {
        id: model.id,
        name: model.name,
        created: model.created,
        description: model.description,
        architecture: (encoded.get(model.id) as { architecture: unknown }).architecture,
        api_endpoints: apiEndpointsOf(model),
        endpoints: model.endpoints.map((endpoint) => ({
          provider: endpoint.provider,
          provider_name: catalog.providerById.get(endpoint.provider)?.name ?? endpoint.provider,
          name: `${catalog.providerById.get(endpoint.provider)?.name ?? endpoint.provider} | ${model.id}`,
          context_length: endpoint.contextLength ?? model.contextLength,
          max_completion_tokens: endpoint.maxCompletionTokens,
          pricing: encodePricing(endpoint.pricing),
          supported_parameters: endpoint.supportedParameters,
          streaming: endpoint.streaming,
          status: isEndpointAvailable(catalog, endpoint) ? 'available' : 'unavailable',
        })),
      },
    };
  });
}

/** The URL clients reached the gateway at, for the absolute links OpenRouter's shapes carry. */
function publicBaseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function modelLinks(base: string, id: string): { details: string } {
  return { details: `${base}/v1/models/${id}/endpoints` };
}

function nextPageUrl(base: string, requestUrl: string, offset: number, limit: number): string {
  const url = new URL(requestUrl, base);
  url.searchParams.delete('cursor');
  url.searchParams.set('offset', String(offset));
  url.searchParams.set('limit', String(limit));
  return url.toString();
}

/** "OpenAI: GPT-4o mini" → "OpenAI"; falls back to the developer slug. */
function authorName(model: ModelConfig): string {
  const colon = model.name.indexOf(':');
  return colon > 0 ? model.name.slice(0, colon).trim() : developerOf(model.id);
}
