import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { priceImages } from '../billing/price-media.js';
import type { ImageRequest } from '../core/image-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { planImages } from './plan-images.js';

/**
 * What an image request would reserve: n × the image price of the endpoint it would try first,
 * chosen by the same routing (account default provider, preferences, key max prices) and priced
 * by the same function as the reservation in `generateImages`.
 */
export async function quoteImages(context: AppContext, principal: Principal, route: RouteRequest, request: ImageRequest): Promise<bigint> {
  const candidates = await planImages(context, principal, route, request);
  return priceImages(candidates[0].endpoint.pricing, request.n);
}
