import type { ApiEndpoint, Config, EndpointPricing, ModelConfig, ModelEndpointConfig, ProviderConfig } from '../config/types.js';

/** The catalog indexed for lookups; built once at start, immutable afterwards. */
export interface Catalog {
  models: ModelConfig[];
  modelById: Map<string, ModelConfig>;
  providerById: Map<string, ProviderConfig>;
}

export function buildCatalog(config: Config): Catalog {
  return {
    models: config.models,
    modelById: new Map(config.models.map((model) => [model.id, model])),
    providerById: new Map(config.providers.map((provider) => [provider.id, provider])),
  };
}

/** The API endpoints a model serves, derived from what it outputs. */
export function apiEndpointsOf(model: ModelConfig): ApiEndpoint[] {
  const endpoints: ApiEndpoint[] = [];
  if (model.outputModalities.includes('text')) endpoints.push('chat', 'responses', 'messages');
  if (model.outputModalities.includes('image')) endpoints.push('images');
  if (model.outputModalities.includes('audio')) endpoints.push('speech');
  if (model.outputModalities.includes('video')) endpoints.push('videos');
  if (model.outputModalities.includes('embeddings')) endpoints.push('embeddings');
  if (model.outputModalities.includes('rerank')) endpoints.push('rerank');
  if (model.outputModalities.includes('moderation')) endpoints.push('moderations');
  return endpoints;
}

/** `openai/gpt-4o-mini` → `openai` */
export function developerOf(modelId: string): string {
  return modelId.slice(0, modelId.indexOf('/'));
}

/** An endpoint can take traffic when its provider is configured (has its API key) and enabled. */
export function isEndpointAvailable(catalog: Catalog, endpoint: ModelEndpointConfig): boolean {
  return catalog.providerById.get(endpoint.provider)?.enabled ?? false;
}

/**
 * The price of the endpoint through which `providerId` serves its model `providerModel`, when
 * the catalog has one: for a pass another model served inside a call (Anthropic's advisor).
 */
export function endpointPricingOf(catalog: Catalog, providerId: string, providerModel: string): EndpointPricing | undefined {
  for (const model of catalog.models) {
    for (const endpoint of model.endpoints) {
      if (endpoint.provider === providerId && endpoint.model === providerModel) return endpoint.pricing;
    }
  }
  return undefined;
}
