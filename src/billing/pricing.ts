import type { EndpointPricing } from '../config/types.js';
import { ceilDiv } from '../core/money.js';
import { executorUsage, type Usage } from '../core/usage.js';

/**
 * The exact cost of a text generation in nano-USD. Every component is summed in
 * nano-USD × tokens-per-million first and divided once, rounding up, so a request is never
 * charged less than the list price and rounding never compounds.
 */
export function priceTextUsage(
  pricing: EndpointPricing,
  usage: Usage,
  inputImages = 0,
  pricingOf?: (providerModel: string) => EndpointPricing | undefined,
): bigint {
  let perMillion = 0n;
  // A pass another model served (an advisor) is priced at that model's price when the catalog
  // knows it, else at the executor's; the rest of the counts at the executor's.
  for (const part of usage.delegated ?? []) perMillion += tokensPerMillion(pricingOf?.(part.model) ?? pricing, part);
  const own = executorUsage(usage);
  perMillion += tokensPerMillion(pricing, own);
  return ceilDiv(perMillion, 1_000_000n) + (pricing.request ?? 0n) + BigInt(inputImages) * (pricing.image ?? 0n);
}

/** Σ tokens × price per million of one set of counts (divided once, by the caller). */
function tokensPerMillion(pricing: EndpointPricing, usage: Omit<Usage, 'delegated'>): bigint {
  const cached = BigInt(Math.max(0, usage.cachedPromptTokens ?? 0));
  const cacheWrite = BigInt(Math.max(0, usage.cacheWritePromptTokens ?? 0));
  const uncached = BigInt(Math.max(0, usage.promptTokens)) - cached - cacheWrite;
  const reasoning = pricing.reasoning !== undefined ? BigInt(usage.reasoningTokens ?? 0) : 0n;
  const completion = BigInt(Math.max(0, usage.completionTokens)) - reasoning;
  return (
    (uncached > 0n ? uncached : 0n) * pricing.prompt +
    cached * (pricing.cachedPrompt ?? pricing.prompt) +
    cacheWrite * (pricing.cacheWrite ?? pricing.prompt) +
    (completion > 0n ? completion : 0n) * pricing.completion +
    reasoning * (pricing.reasoning ?? pricing.completion)
  );
}

/** The most a text call can cost: every prompt token uncached, every allowed output token used. */
export function priceTextCeiling(pricing: EndpointPricing, promptTokens: number, maxOutputTokens: number, inputImages = 0): bigint {
  const outputPrice = pricing.reasoning !== undefined && pricing.reasoning > pricing.completion ? pricing.reasoning : pricing.completion;
  const writePrice = pricing.cacheWrite !== undefined && pricing.cacheWrite > pricing.prompt ? pricing.cacheWrite : pricing.prompt;
  const perMillion = BigInt(promptTokens) * writePrice + BigInt(maxOutputTokens) * outputPrice;
  return ceilDiv(perMillion, 1_000_000n) + (pricing.request ?? 0n) + BigInt(inputImages) * (pricing.image ?? 0n);
}

/**
 * A cost at an endpoint's provider-batch discount (`pricing.batch_discount`, parts per million):
 * the live rule's cost times the ratio, rounded up to the nano-USD once.
 */
export function discountForBatch(cost: bigint, discountPpm: bigint): bigint {
  return ceilDiv(cost * discountPpm, 1_000_000n);
}
