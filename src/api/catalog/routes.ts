import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { apiEndpointsOf, developerOf, isEndpointAvailable } from '../../catalog/catalog.js';
import type { ModelConfig } from '../../config/types.js';
import { notFound } from '../../errors/gateway-error.js';
import { encodeModel, encodePricing } from './encode-model.js';

const ModelFilters = Type.Object(
  {
    author: Type.Optional(Type.String()),
    output_modalities: Type.Optional(Type.String({ description: 'comma-separated: text, image, audio, video, or all' })),
    free: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

interface ModelFilterQuery {
  author?: string;
  output_modalities?: string;
  free?: boolean;
  limit?: number;
  cursor?: string;
}

/**
 * Public catalog endpoints (contract §3). The catalog is immutable while the process runs, so
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
    const models = filter(request.query);
    // The whole catalog by default (OpenRouter's behaviour); `limit`/`cursor` page through it.
    const start = request.query.cursor ? models.findIndex((model) => model.id === request.query.cursor) + 1 : 0;
    const limit = request.query.limit ?? models.length;
    const page = models.slice(start, start + limit);
    const more = start + limit < models.length;
    return { data: page.map((model) => encoded.get(model.id)), next_cursor: more && page.length > 0 ? page[page.length - 1].id : null };
  });

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

/** "OpenAI: GPT-4o mini" → "OpenAI"; falls back to the developer slug. */
function authorName(model: ModelConfig): string {
  const colon = model.name.indexOf(':');
  return colon > 0 ? model.name.slice(0, colon).trim() : developerOf(model.id);
}
