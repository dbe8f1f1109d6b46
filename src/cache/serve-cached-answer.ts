import type { Principal } from '../auth/principal.js';
import type { Ledger } from '../billing/ledger.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import type { Candidate } from '../catalog/candidate.js';
import type { CachedAnswer } from './cached-answer.js';
import type { ResponseCache } from './response-cache.js';

/** The services a cache hit uses (a type of its own: the app context holds the cache). */
export interface CacheHitDependencies {
  ledger: Pick<Ledger, 'reserve' | 'settle' | 'release'>;
}

/** What a hit was charged, and the catalog endpoint its row names (the one that served the stored answer). */
export interface ChargedHit {
  candidate: Candidate;
  cost: bigint;
}

/**
 * `price_factor` × the stored cost, rounded down to the nano-USD (the factor is held in
 * millionths, so 0.5 halves exactly).
 */
export function priceCacheHit(storedCost: bigint, priceFactorMillionths: number): bigint {
  return (storedCost * BigInt(priceFactorMillionths)) / 1_000_000n;
}

/**
 * The routed candidate that served the stored answer, if the request may still use it: routing
 * (the key's max prices, the request's provider preferences, the catalog as it is now) gave
 * `candidates`, and a stored endpoint outside them makes the request a miss, as it could never
 * have been answered by that endpoint live.
 */
export function servingCandidate(candidates: readonly Candidate[], answer: CachedAnswer): Candidate | undefined {
  for (const candidate of candidates) {
    if (candidate.model.id === answer.model && candidate.provider.id === answer.provider && candidate.endpoint.model === answer.providerModel) return candidate;
  }
  return undefined;
}

/**
 * A cache hit is a paid call of its own (docs/architecture.md, "Where a new paid endpoint plugs
 * in"): it reserves `price_factor` × the stored cost (nothing is touched when that is zero),
 * settles exactly that with the request's row (`cache_hit`, the stored usage, the endpoint that
 * served the stored answer), and adds what it saved to `/usage`'s savings. It runs after the
 * request was routed and admitted (`generation/generate-text.ts`), with the routed candidate that
 * served the stored answer (`servingCandidate`).
 */
export async function chargeCacheHit(
  dependencies: CacheHitDependencies,
  answer: CachedAnswer,
  candidate: Candidate,
  input: { principal: Principal; requestId: string; record: SettlementRecorder; priceFactorMillionths: number; savings: Pick<ResponseCache, 'addSaving'> },
): Promise<ChargedHit> {
  const { principal } = input;
  const amount = priceCacheHit(answer.cost, input.priceFactorMillionths);
  const paid = await PaidCall.reserve(dependencies.ledger, { accountId: principal.accountId, keyId: principal.keyId, requestId: input.requestId, amount }, { candidate, record: input.record });
  let cost: bigint;
  try {
    cost = await paid.settle(answer.result.usage, 'completed', { cost: amount, cacheHit: true });
  } catch (error) {
    await paid.abort(error);
    throw error;
  }
  input.savings.addSaving(principal.accountId, principal.keyId, answer.cost - cost);
  return { candidate, cost };
}
