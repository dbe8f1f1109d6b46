import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { defaultMediaConfig } from '../config/default-media-config.js';
import type { ModelConfig } from '../config/types.js';
import type { ImageRequest } from '../core/image-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { imageAdapterOf } from '../providers/media-adapters.js';
import type { Candidate } from '../catalog/candidate.js';
import { keepCapableCandidates, routeNonTextRequest } from './select-media-candidates.js';

/**
 * The endpoints that can serve this image request, in routing order. The request was validated
 * against the first model's schema already; a fallback model that does not list the requested
 * size, quality, aspect ratio or resolution, cannot edit, or allows fewer images, is skipped, and
 * so is an endpoint whose protocol cannot honour a field. When routing found endpoints but none
 * can honour the request, the refusal is a 400 naming the field.
 */
export async function planImages(context: AppContext, principal: Principal, route: RouteRequest, request: ImageRequest): Promise<Candidate[]> {
  const routed = await routeNonTextRequest(context, principal, route, 'images');
  return keepCapableCandidates(routed, {
    adapterOf: imageAdapterOf,
    request,
    modelAccepts: (model) => modelAccepts(model, request),
    refusalFor: (model) => `Model '${model.id}' cannot serve this image request`,
  });
}

/** Whether a model lists every value the request asks for (the schema's rules, for fallbacks). */
export function modelAccepts(model: ModelConfig, request: ImageRequest): boolean {
  const listed = (values: string[] | undefined, value: string | undefined) => value === undefined || (values ?? []).includes(value);
  return (
    (request.operation === 'generate' || model.inputModalities.includes('image')) &&
    request.n <= maxImagesOf(model) &&
    listed(model.sizes, request.size) &&
    listed(model.qualities, request.quality) &&
    listed(model.aspectRatios, request.aspectRatio) &&
    listed(model.resolutions, request.resolution)
  );
}

/** The largest `n` a model allows. */
export function maxImagesOf(model: ModelConfig): number {
  return model.maxImages ?? defaultMediaConfig.maxImages;
}
