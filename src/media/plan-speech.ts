import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import type { SpeechRequest } from '../core/speech-request.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { speechAdapterOf } from '../providers/media-adapters.js';
import type { Candidate } from '../catalog/candidate.js';
import { keepCapableCandidates, routeNonTextRequest } from './select-media-candidates.js';

/**
 * The endpoints that can serve this speech request, in routing order: the model's (and fallback
 * models') speech endpoints, minus those whose model lacks the voice or whose protocol cannot
 * honour the format or speed. When routing found endpoints but none can honour the request, the
 * refusal is a 400 naming the field.
 */
export async function planSpeech(context: AppContext, principal: Principal, route: RouteRequest, request: SpeechRequest): Promise<Candidate[]> {
  const routed = await routeNonTextRequest(context, principal, route, 'speech');
  const primary = routed[0].model;
  if (primary.voices.length > 0 && !primary.voices.includes(request.voice)) {
    throw invalidRequest(`'voice' must be one of ${primary.voices.join(', ')} for model '${primary.id}'`, 'voice');
  }
  return keepCapableCandidates(routed, {
    adapterOf: speechAdapterOf,
    request,
    modelAccepts: (model) => model.voices.length === 0 || model.voices.includes(request.voice),
    refusalFor: (model) => `Model '${model.id}' has no provider that can synthesize this request`,
  });
}
