import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import type { SpeechRequest } from '../core/speech-request.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { speechAdapterOf } from '../providers/media-adapters.js';
import type { Candidate } from '../routing/candidate.js';
import { selectCandidates } from '../routing/select-candidates.js';

/**
 * The endpoints that can serve this speech request, in routing order: the model's (and fallback
 * models') speech endpoints, minus those whose model lacks the voice or whose protocol cannot
 * honour the format or speed. When routing found endpoints but none can honour the request, the
 * refusal is a 400 naming the field.
 */
export async function planSpeech(context: AppContext, principal: Principal, route: RouteRequest, request: SpeechRequest): Promise<Candidate[]> {
  const defaults = await context.defaultProviders.get(principal.accountId);
  const routed = selectCandidates({
    catalog: context.catalog,
    route,
    api: 'speech',
    parameters: [],
    stream: false,
    principal,
    defaultProviderOf: (modelId) => defaults.get(modelId),
    health: context.health,
  });
  const primary = routed[0].model;
  if (primary.voices.length > 0 && !primary.voices.includes(request.voice)) {
    throw invalidRequest(`'voice' must be one of ${primary.voices.join(', ')} for model '${primary.id}'`, 'voice');
  }
  const usable = routed.filter((candidate) => {
    const adapter = speechAdapterOf(candidate.provider.api);
    const voices = candidate.model.voices;
    return adapter !== undefined && adapter.incapability(request) === undefined && (voices.length === 0 || voices.includes(request.voice));
  });
  if (usable.length > 0) return usable;
  const refusal = routed.map((candidate) => speechAdapterOf(candidate.provider.api)?.incapability(request)).find((entry) => entry !== undefined);
  if (refusal) throw invalidRequest(`'${refusal.field}' ${refusal.reason}`, refusal.field);
  throw invalidRequest(`Model '${primary.id}' has no provider that can synthesize this request`);
}
