import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { Candidate } from '../catalog/candidate.js';
import type { ModerationRequest } from '../core/moderation-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { moderationAdapterOf } from '../providers/retrieval-adapters.js';
import { routeNonTextRequest } from '../media/select-media-candidates.js';

/**
 * The endpoints that can serve this moderation, in routing order (the account's default
 * providers first): the model's (and fallback models') moderation endpoints, minus those whose
 * model does not take images when the input holds one, whose protocol cannot honour the input,
 * and those on Azure OpenAI, which has no moderations API (its content filter runs inside each
 * deployment instead: https://learn.microsoft.com/azure/ai-foundry/openai/concepts/content-filter).
 * When routing found endpoints but none can serve the request, the refusal is a 400 naming `input`.
 */
export async function planModeration(context: AppContext, principal: Principal, route: RouteRequest, request: ModerationRequest): Promise<Candidate[]> {
  const routed = await routeNonTextRequest(context, principal, route, 'moderations');
  const hasImage = request.inputs.some((input) => input.type === 'image_url');
  const primary = routed[0].model;
  if (hasImage && !primary.inputModalities.includes('image')) {
    throw invalidRequest(`'input' holds an image_url, but model '${primary.id}' classifies text only`, 'input');
  }
  const usable = routed.filter(
    (candidate) =>
      candidate.provider.platform?.kind !== 'azure' &&
      (!hasImage || candidate.model.inputModalities.includes('image')) &&
      moderationAdapterOf(candidate.provider.api)?.incapability(request, candidate.endpoint.model) === undefined,
  );
  if (usable.length > 0) return usable;
  const refusal = routed.map((candidate) => moderationAdapterOf(candidate.provider.api)?.incapability(request, candidate.endpoint.model)).find((entry) => entry !== undefined);
  if (refusal) throw invalidRequest(`'${refusal.field}' ${refusal.reason}`, refusal.field);
  throw invalidRequest(`Model '${primary.id}' has no provider that can moderate this request`);
}
