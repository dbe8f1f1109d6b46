import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { ModelConfig } from '../config/types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { videoAdapterFor } from '../providers/video-adapters.js';
import type { VideoProviderAdapter } from '../providers/video-adapter.js';
import type { Candidate } from '../catalog/candidate.js';
import { EndpointHealth } from '../routing/endpoint-health.js';
import { selectCandidates } from '../routing/select-candidates.js';
import { checkVideoRequest } from './check-video-request.js';
import { priceVideoSeconds } from './price-video.js';
import type { VideoRequest, VideoRequestBody } from './video-request.js';

/** One endpoint that can make the video, with what it would cost. */
export interface VideoRoute {
  candidate: Candidate;
  adapter: VideoProviderAdapter;
  /** nano-USD per second of video at this endpoint. */
  pricePerSecond: bigint;
  /** What a `POST /videos` served here reserves: seconds × price. */
  amount: bigint;
}

export interface VideoPlan {
  model: ModelConfig;
  request: VideoRequest;
  /** In the order they are tried; the first one's amount is the quote. */
  routes: VideoRoute[];
}

/**
 * Routes and checks a video request, for `POST /videos` and `/videos/quote` alike, so that a
 * quote is exactly what the request would reserve. A model that does not exist or makes no
 * video has no route (503 `no_available_provider`, docs/api-decisions.md §4). Endpoints go in the routing
 * order of text (the account's default provider first, open circuits last), and otherwise the
 * cheapest per second first; only providers whose protocol has a video API here are kept.
 */
export async function planVideo(context: AppContext, principal: Principal | null, body: VideoRequestBody): Promise<VideoPlan> {
  const defaults = principal ? await context.defaultProviders.get(principal.accountId) : new Map<string, string>();
  const candidates = selectCandidates({
    catalog: context.catalog,
    route: { model: body.model, fallbackModels: [] },
    api: 'videos',
    parameters: [],
    stream: false,
    principal: principal ?? { maxPrice: null, modelMaxPrices: {} },
    defaultProviderOf: (modelId) => defaults.get(modelId),
    health: context.health,
  });
  const model = candidates[0].model;
  const request = checkVideoRequest(body, model);
  const preferred = defaults.get(model.id);
  const rank = (candidate: Candidate) =>
    (candidate.provider.id === preferred ? 0 : 1) + (context.health.state(EndpointHealth.keyOf(candidate.provider.id, candidate.endpoint.model)) === 'open' ? 2 : 0);
  const routes = candidates
    .flatMap((candidate) => {
      const adapter = videoAdapterFor(candidate.provider.api);
      if (!adapter) return [];
      const pricePerSecond = candidate.endpoint.pricing.videoSecond ?? 0n;
      return [{ candidate, adapter, pricePerSecond, amount: priceVideoSeconds(request.seconds, pricePerSecond) }];
    })
    .sort((a, b) => rank(a.candidate) - rank(b.candidate) || (a.pricePerSecond < b.pricePerSecond ? -1 : a.pricePerSecond > b.pricePerSecond ? 1 : 0));
  if (routes.length === 0) {
    throw new GatewayError('no_available_provider', `No provider for model '${model.id}' is available for /videos (none of its providers speaks a video protocol)`);
  }
  return { model, request, routes };
}
