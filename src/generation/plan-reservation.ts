import type { Ledger, Reservation } from '../billing/ledger.js';
import { priceTextCeiling } from '../billing/pricing.js';
import type { TextRequest } from '../core/text-request.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Candidate } from '../catalog/candidate.js';
import { withFields } from '../core/with-fields.js';

/**
 * Reserves the most this call can cost on this endpoint and fixes the upstream `max_tokens`
 * (docs/api-decisions.md §5). Without a client `max_tokens`, the ceiling is the endpoint's maximum (or what
 * the context leaves); when the funds do not cover it, `max_tokens` is capped to what they do.
 */
export async function planReservation(
  ledger: Ledger,
  candidate: Candidate,
  request: TextRequest,
  prompt: { tokens: number; images: number },
  owner: { accountId: string; keyId: string | null; requestId: string },
  /** A request the gateway runs hosted tools for: up to `turns` model turns, plus `extra` (every allowed search). */
  hosted: { turns: number; extra: bigint } = { turns: 1, extra: 0n },
): Promise<{ request: TextRequest; reservation: Reservation }> {
  const { pricing } = candidate.endpoint;
  const contextLength = candidate.endpoint.contextLength ?? candidate.model.contextLength ?? 0;
  const clientMax = request.maxTokens;
  const ceiling = clientMax ?? candidate.endpoint.maxCompletionTokens ?? Math.max(1, contextLength - prompt.tokens);
  const upstreamMax = clientMax ?? candidate.endpoint.maxCompletionTokens ?? undefined;
  try {
    const amount = priceTextCeiling(pricing, prompt.tokens, ceiling, prompt.images) * BigInt(hosted.turns) + hosted.extra;
    const reservation = await ledger.reserve({ accountId: owner.accountId, keyId: owner.keyId, requestId: owner.requestId, amount });
    return { request: upstreamMax === request.maxTokens ? request : withFields(request, { maxTokens: upstreamMax }), reservation };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'insufficient_balance' || clientMax !== undefined) throw error;
    const affordable = await affordableOutputTokens(ledger, candidate, prompt, owner);
    if (affordable < 1) throw error;
    const maxTokens = Math.min(affordable, ceiling);
    const reservation = await ledger.reserve({ ...owner, amount: priceTextCeiling(pricing, prompt.tokens, maxTokens, prompt.images) * BigInt(hosted.turns) + hosted.extra });
    return { request: withFields(request, { maxTokens }), reservation };
  }
}

async function affordableOutputTokens(
  ledger: Ledger,
  candidate: Candidate,
  prompt: { tokens: number; images: number },
  owner: { accountId: string; keyId: string | null },
): Promise<number> {
  const { pricing } = candidate.endpoint;
  const spendable = await ledger.spendable(owner.accountId, owner.keyId);
  const promptCost = priceTextCeiling(pricing, prompt.tokens, 0, prompt.images);
  const outputPrice = pricing.reasoning !== undefined && pricing.reasoning > pricing.completion ? pricing.reasoning : pricing.completion;
  if (spendable <= promptCost) return 0;
  if (outputPrice === 0n) return Number.MAX_SAFE_INTEGER;
  // floor((spendable − prompt) × 1e6 / price): the ceiling price rounds up, so stay one token under.
  return Number(((spendable - promptCost) * 1_000_000n) / outputPrice) - 1;
}
