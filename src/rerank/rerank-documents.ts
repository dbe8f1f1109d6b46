import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import { priceRerank } from '../billing/price-rerank.js';
import type { Candidate } from '../catalog/candidate.js';
import type { CancelSignal } from '../core/cancel-signal.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import type { RerankRequest, RerankResult } from '../core/rerank-request.js';
import { admitRequest } from '../limits/admit-request.js';
import { rerankAdapterOf } from '../providers/retrieval-adapters.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { estimateRerankUnits } from './estimate-rerank-units.js';
import { planRerank } from './plan-rerank.js';

export interface RerankOutcome {
  candidate: Candidate;
  result: RerankResult;
  /** What was charged, in nano-USD. */
  cost: bigint;
}

/**
 * Route → admit → reserve the most the candidate can cost (the request's searches and tokens at
 * most, `estimate-rerank-units.ts`, at its price) → call → settle at what the provider billed
 * (its search units or tokens, `billing/price-rerank.ts`). A failed call releases its
 * reservation and, when retryable, tries the next endpoint.
 */
export async function rerankDocuments(
  context: AppContext,
  input: {
    principal: Principal;
    requestId: string;
    route: RouteRequest;
    request: RerankRequest;
    signal: CancelSignal;
    /** Writes the request log row of the charge, committed together with it. */
    record?: SettlementRecorder;
  },
): Promise<RerankOutcome> {
  const { principal, request } = input;
  const candidates = await planRerank(context, principal, input.route, request);
  await admitRequest(context, principal, candidates[0].model);
  const most = estimateRerankUnits(request);
  const { candidate, value } = await tryCandidates(context, candidates, input.signal, async (candidate) => {
    const pricing = candidate.endpoint.pricing;
    const paid = await PaidCall.reserve(context.ledger, { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId, amount: priceRerank(pricing, most) }, { candidate, record: input.record });
    let result: RerankResult;
    try {
      result = await rerankAdapterOf(candidate.provider.api)!.rerank(request, callContextOf(context, candidate, input.signal));
    } catch (error) {
      await paid.abort(error);
      throw error;
    }
    const cost = priceRerank(pricing, result);
    // The row's prompt tokens are the tokens the provider counted (or the gateway's estimate); searches are in the cost.
    return { result, cost: await paid.settle({ promptTokens: result.tokens, completionTokens: 0, estimated: result.estimated }, 'completed', { cost }) };
  });
  return { candidate, ...value };
}
