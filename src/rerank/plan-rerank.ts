import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { Candidate } from '../catalog/candidate.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import type { RerankRequest } from '../core/rerank-request.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { rerankAdapterOf } from '../providers/retrieval-adapters.js';
import { routeNonTextRequest } from '../media/select-media-candidates.js';

/**
 * The endpoints that can serve this rerank request, in routing order (the account's default
 * providers first): the model's (and fallback models') rerank endpoints whose protocol has a
 * rerank adapter that can honour the request for that provider model. When routing found
 * endpoints but none can, the refusal is a 400 naming the field the first protocol gave.
 */
export async function planRerank(context: AppContext, principal: Principal, route: RouteRequest, request: RerankRequest): Promise<Candidate[]> {
  const routed = await routeNonTextRequest(context, principal, route, 'rerank');
  const usable = routed.filter((candidate) => {
    const adapter = rerankAdapterOf(candidate.provider.api);
    return adapter !== undefined && adapter.incapability(request, candidate.endpoint.model) === undefined;
  });
  if (usable.length > 0) return usable;
  for (const candidate of routed) {
    const refusal = rerankAdapterOf(candidate.provider.api)?.incapability(request, candidate.endpoint.model);
    if (refusal) throw invalidRequest(`'${refusal.field}' ${refusal.reason}`, refusal.field);
  }
  throw invalidRequest(`Model '${routed[0].model.id}' has no provider that can rerank this request`);
}
