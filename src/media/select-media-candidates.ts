import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { ModelConfig, ProviderApi } from '../config/types.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { invalidRequest } from '../errors/gateway-error.js';
import type { Incapability } from '../providers/media-adapter.js';
import type { Candidate } from '../catalog/candidate.js';
import { selectCandidates } from '../routing/select-candidates.js';

/**
 * The endpoints of a request that names no text parameters (speech, images, embeddings, rerank,
 * moderations) in routing order, the account's default providers first.
 */
export async function routeNonTextRequest(
  context: AppContext,
  principal: Principal,
  route: RouteRequest,
  api: 'images' | 'speech' | 'embeddings' | 'rerank' | 'moderations',
): Promise<Candidate[]> {
  const defaults = await context.defaultProviders.get(principal.accountId);
  return selectCandidates({
    catalog: context.catalog,
    route,
    api,
    parameters: [],
    stream: false,
    principal,
    defaultProviderOf: (modelId) => defaults.get(modelId),
    health: context.health,
  });
}

export interface CapabilityRules<Request> {
  adapterOf(api: ProviderApi): { incapability(request: Request): Incapability | undefined } | undefined;
  request: Request;
  /** Whether the endpoint's model lists what the request asks for. */
  modelAccepts(model: ModelConfig): boolean;
  /** The refusal when no endpoint fits and no protocol named a field; gets the first routed model. */
  refusalFor(model: ModelConfig): string;
}

/**
 * The routed endpoints whose protocol can honour the request and whose model accepts it. When
 * none can, the refusal is a 400 naming the field of the first protocol that said why.
 */
export function keepCapableCandidates<Request>(routed: Candidate[], rules: CapabilityRules<Request>): Candidate[] {
  const usable = routed.filter((candidate) => {
    const adapter = rules.adapterOf(candidate.provider.api);
    return adapter !== undefined && adapter.incapability(rules.request) === undefined && rules.modelAccepts(candidate.model);
  });
  if (usable.length > 0) return usable;
  const refusal = routed.map((candidate) => rules.adapterOf(candidate.provider.api)?.incapability(rules.request)).find((entry) => entry !== undefined);
  if (refusal) throw invalidRequest(`'${refusal.field}' ${refusal.reason}`, refusal.field);
  throw invalidRequest(rules.refusalFor(routed[0].model));
}
