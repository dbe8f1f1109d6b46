import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { apiEndpointsOf } from '../../catalog/catalog.js';
import { imageOperations, type ImageOperation } from '../../core/image-request.js';
import { nanoToUsd } from '../../core/money.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { quoteImages } from '../../media/quote-images.js';
import { decodeImageRequest } from './decode-image-request.js';
import { encodeMediaModel } from './encode-media-model.js';

/**
 * GET /v1/media/models: image models, their operations, request schemas and prices (public).
 * POST /v1/media/quote: the body of an image request plus `operation` (`generate` by default, or
 * `edit`), answered with exactly the amount that request would reserve.
 */
export function registerMediaCatalogRoutes(app: FastifyInstance, context: AppContext): void {
  const imageModels = context.catalog.models.filter((model) => apiEndpointsOf(model).includes('images'));
  const encoded = imageModels.map((model) => encodeMediaModel(context.catalog, model));
  app.get('/v1/media/models', { config: { auth: 'optional' } }, async () => ({ data: encoded, next_cursor: null }));

  app.post('/v1/media/quote', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, async (request) => {
    const { operation = 'generate', ...body } = request.body as Record<string, unknown>;
    if (typeof operation !== 'string' || !imageOperations.includes(operation as ImageOperation)) {
      throw invalidRequest(`'operation' must be one of ${imageOperations.join(', ')}`, 'operation');
    }
    const decoded = decodeImageRequest(context.catalog, body, operation as ImageOperation);
    const amount = await quoteImages(context, request.principal!, decoded.route, decoded.request);
    return { data: { amount: nanoToUsd(amount), currency: 'USD' } };
  });
}
