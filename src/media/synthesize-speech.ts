import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { priceSpeech } from '../billing/price-media.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { countSpeechCharacters, type SpeechRequest } from '../core/speech-request.js';
import { admitRequest } from '../limits/admit-request.js';
import { speechAdapterOf } from '../providers/media-adapters.js';
import type { Candidate } from '../catalog/candidate.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import { emptyUsage } from '../core/usage.js';
import { planSpeech } from './plan-speech.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import type { CancelSignal } from '../core/cancel-signal.js';

export interface SpeechOutcome {
  candidate: Candidate;
  audio: Buffer;
  /** What was charged, in nano-USD. */
  cost: bigint;
}

/**
 * Route → admit → reserve the exact price (input characters × the endpoint's price) → call →
 * settle. A failed call releases its reservation and, when retryable, tries the next endpoint.
 */
export async function synthesizeSpeech(
  context: AppContext,
  input: {
    principal: Principal;
    requestId: string;
    route: RouteRequest;
    request: SpeechRequest;
    signal: CancelSignal;
    /** Writes the request log row of the charge, committed together with it. */
    record?: SettlementRecorder;
  },
): Promise<SpeechOutcome> {
  const { principal, request } = input;
  const candidates = await planSpeech(context, principal, input.route, request);
  await admitRequest(context, principal, candidates[0].model);
  const characters = countSpeechCharacters(request.input);
  const { candidate, value } = await tryCandidates(context, candidates, input.signal, async (candidate) => {
    const amount = priceSpeech(candidate.endpoint.pricing, characters);
    const paid = await PaidCall.reserve(context.ledger, { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId, amount }, { candidate, record: input.record });
    let audio: Buffer;
    try {
      audio = await speechAdapterOf(candidate.provider.api)!.synthesize(request, callContextOf(context, candidate, input.signal));
    } catch (error) {
      await paid.abort(error);
      throw error;
    }
    // The exact price was reserved; a speech row carries no token counts.
    return { audio, cost: await paid.settle({ ...emptyUsage }, 'completed', { cost: amount }) };
  });
  return { candidate, ...value };
}
