import { apiEndpointsOf, isEndpointAvailable, type Catalog } from '../../catalog/catalog.js';
import type { ModelConfig } from '../../config/types.js';
import { nanoToUsd } from '../../core/money.js';
import { videoAdapterFor } from '../../providers/video-adapters.js';
import { encodeModelIdentity } from '../shared/encode-model-identity.js';

/**
 * `GET /videos/models`: what each video model accepts (the values `POST /videos` checks against)
 * and what a second costs, per provider and at the cheapest available one. USD as JSON numbers.
 */
export function encodeVideoModels(catalog: Catalog): Record<string, unknown>[] {
  return catalog.models.filter((model) => apiEndpointsOf(model).includes('videos')).map((model) => encodeVideoModel(catalog, model));
}

function encodeVideoModel(catalog: Catalog, model: ModelConfig): Record<string, unknown> {
  const endpoints = model.endpoints.map((endpoint) => {
    const provider = catalog.providerById.get(endpoint.provider);
    const servable = provider !== undefined && videoAdapterFor(provider.api) !== undefined && isEndpointAvailable(catalog, endpoint);
    return { endpoint, provider, servable, price: endpoint.pricing.videoSecond ?? 0n };
  });
  const available = endpoints.filter((entry) => entry.servable);
  const cheapest = (available.length > 0 ? available : endpoints).reduce<bigint | null>((best, entry) => (best === null || entry.price < best ? entry.price : best), null);
  const providers = endpoints.map((entry) => ({
    provider: entry.endpoint.provider,
    provider_name: entry.provider?.name ?? entry.endpoint.provider,
    price_per_second: nanoToUsd(entry.price),
    status: entry.servable ? 'available' : 'unavailable',
  }));
  return {
    ...encodeModelIdentity(model),
    durations: model.durations,
    default_seconds: model.durations[0] ?? null,
    resolutions: model.resolutions,
    aspect_ratios: model.aspectRatios,
    sizes: model.sizes,
    image_input: model.inputModalities.includes('image'),
    input_modalities: model.inputModalities,
    pricing: { video_second: nanoToUsd(cheapest ?? 0n), currency: 'USD' },
    providers,
  };
}
