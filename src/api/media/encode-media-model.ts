import { isEndpointAvailable, type Catalog } from '../../catalog/catalog.js';
import type { ModelConfig, ModelEndpointConfig } from '../../config/types.js';
import { imageOperations, type ImageOperation } from '../../core/image-request.js';
import { formatScaled } from '../../core/money.js';
import { encodeModelIdentity } from '../shared/encode-model-identity.js';
import { buildImageRequestSchema } from './image-request-schema.js';

const paths: Record<ImageOperation, string> = { generate: '/v1/images/generations', edit: '/v1/images/edits' };

/**
 * One image model for `GET /media/models`: its operations, each with the JSON Schema its request
 * body is validated with, and prices in USD per image (decimal strings, as in /models).
 */
export function encodeMediaModel(catalog: Catalog, model: ModelConfig): Record<string, unknown> {
  const operations = imageOperations.filter((operation) => operation === 'generate' || model.inputModalities.includes('image'));
  const cheapest = [...model.endpoints].sort((a, b) => Number((a.pricing.image ?? 0n) - (b.pricing.image ?? 0n)))[0];
  return {
    ...encodeModelIdentity(model),
    operations: operations.map((operation) => ({
      operation,
      method: 'POST',
      path: paths[operation],
      pricing: encodeImagePricing(cheapest),
      request_schema: buildImageRequestSchema(model, operation),
    })),
    providers: model.endpoints.map((endpoint) => ({
      provider: endpoint.provider,
      provider_name: catalog.providerById.get(endpoint.provider)?.name ?? endpoint.provider,
      pricing: encodeImagePricing(endpoint),
      status: isEndpointAvailable(catalog, endpoint) ? 'available' : 'unavailable',
    })),
  };
}

function encodeImagePricing(endpoint: ModelEndpointConfig): Record<string, string> {
  const pricing: Record<string, string> = { image: formatScaled(endpoint.pricing.image ?? 0n, 9) };
  if (endpoint.pricing.request) pricing.request = formatScaled(endpoint.pricing.request, 9);
  return pricing;
}
