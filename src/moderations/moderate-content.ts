import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import { priceTextCeiling } from '../billing/pricing.js';
import type { Candidate } from '../catalog/candidate.js';
import type { CancelSignal } from '../core/cancel-signal.js';
import type { ModerationRequest, ModerationResult } from '../core/moderation-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import type { Usage } from '../core/usage.js';
import { admitRequest } from '../limits/admit-request.js';
import { moderationAdapterOf } from '../providers/retrieval-adapters.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { countModerationTokens, moderationTokenCeiling } from './count-moderation-tokens.js';
import { planModeration } from './plan-moderation.js';

export interface ModerationOutcome {
  candidate: Candidate;
  result: ModerationResult;
  /** The input tokens charged for (`usage.estimated` when the provider reported none). */
  usage: Usage;
  /** What was charged, in nano-USD. */
  cost: bigint;
}

/**
 * Route → admit → reserve the most the input can cost (its byte length as tokens, at the
 * endpoint's `prompt` price per 1M) → call → settle with the input tokens by the text rule, so a
 * priced moderation model charges exactly tokens × price (OpenAI's own are free: price 0). OpenAI
 * reports no usage for a moderation, so the tokens are the gateway's count, marked estimated. A
 * failed call releases its reservation and, when retryable, tries the next endpoint.
 */
export async function moderateContent(
  context: AppContext,
  input: {
    principal: Principal;
    requestId: string;
    route: RouteRequest;
    request: ModerationRequest;
    signal: CancelSignal;
    /** Writes the request log row of the charge, committed together with it. */
    record?: SettlementRecorder;
  },
): Promise<ModerationOutcome> {
  const { principal, request } = input;
  const candidates = await planModeration(context, principal, input.route, request);
  await admitRequest(context, principal, candidates[0].model);
  const ceiling = moderationTokenCeiling(request);
  const { candidate, value } = await tryCandidates(context, candidates, input.signal, async (candidate) => {
    const amount = priceTextCeiling(candidate.endpoint.pricing, ceiling, 0);
    const paid = await PaidCall.reserve(context.ledger, { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId, amount }, { candidate, record: input.record });
    let result: ModerationResult;
    let usage: Usage;
    try {
      result = await moderationAdapterOf(candidate.provider.api)!.moderate(request, callContextOf(context, candidate, input.signal));
      const promptTokens = result.estimated ? await countModerationTokens(request) : result.promptTokens;
      usage = { promptTokens, completionTokens: 0, ...(result.estimated ? { estimated: true } : {}) };
    } catch (error) {
      await paid.abort(error);
      throw error;
    }
    return { result: { ...result, promptTokens: usage.promptTokens }, usage, cost: await paid.settle(usage, 'completed') };
  });
  return { candidate, ...value };
}
