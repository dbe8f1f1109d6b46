import type { Catalog } from '../../catalog/catalog.js';
import { apiEndpointsOf } from '../../catalog/catalog.js';
import type { ModelConfig } from '../../config/types.js';
import type { ImageOperation, ImageRequest, ImageResponseFormat } from '../../core/image-request.js';
import type { RouteRequest } from '../../core/provider-preferences.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';
import { validateImageBody } from './validate-image-body.js';

export interface DecodedImageCall {
  route: RouteRequest;
  model: ModelConfig;
  /** The request without its input images, which are loaded after admission. */
  request: ImageRequest;
  /** Edit inputs, in order, with the field each came from (for error messages). */
  imageUrls: Array<{ url: string; field: string }>;
  responseFormat: ImageResponseFormat;
}

/**
 * Reads an image request body (JSON, or a multipart form already turned into the same shape):
 * the route, then every field against the first model's published schema.
 */
export function decodeImageRequest(catalog: Catalog, body: Record<string, unknown>, operation: ImageOperation): DecodedImageCall {
  const route = decodeRouteRequest(body);
  const model = catalog.modelById.get(route.model);
  const path = operation === 'edit' ? '/images/edits' : '/images/generations';
  if (!model || !apiEndpointsOf(model).includes('images')) {
    throw new GatewayError('no_available_provider', `No provider for model '${route.model}' is available for ${path}`);
  }
  if (operation === 'edit' && !model.inputModalities.includes('image')) {
    throw new GatewayError('no_available_provider', `Model '${model.id}' does not edit images: no provider for it is available for ${path}`);
  }
  validateImageBody(model, operation, body);
  const images = operation === 'edit' ? (body.images as Array<{ image_url: string }>) : [];
  const optional = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
  return {
    route,
    model,
    request: {
      operation,
      prompt: body.prompt as string,
      n: typeof body.n === 'number' ? body.n : 1,
      size: optional('size'),
      quality: optional('quality'),
      aspectRatio: optional('aspect_ratio'),
      resolution: optional('resolution'),
      images: [],
    },
    imageUrls: images.map((image, index) => ({ url: image.image_url, field: `images[${index}].image_url` })),
    responseFormat: body.response_format === 'url' ? 'url' : 'b64_json',
  };
}
