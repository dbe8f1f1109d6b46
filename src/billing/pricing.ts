import type { EndpointPricing } from '../config/types.js';
import { ceilDiv } from '../core/money.js';
import type { Usage } from '../core/usage.js';

/**
 * The exact cost of a text generation in nano-USD. Every component is summed in
 * nano-USD × tokens-per-million first and divided once, rounding up, so a request is never
 * charged less than the list price and rounding never compounds.
 */
export function priceTextUsage(pricing: EndpointPricing, usage: Usage, inputImages = 0): bigint {
  const cached = BigInt(usage.cachedPromptTokens ?? 0);
  const cacheWrite = BigInt(usage.cacheWritePromptTokens ?? 0);
  const uncached = BigInt(Math.max(0, usage.promptTokens)) - cached - cacheWrite;
  const reasoning = pricing.reasoning !== undefined ? BigInt(usage.reasoningTokens ?? 0) : 0n;
  const completion = BigInt(Math.max(0, usage.completionTokens)) - reasoning;
  const perMillion =
    (uncached > 0n ? uncached : 0n) * pricing.prompt +
    cached * (pricing.cachedPrompt ?? pricing.prompt) +
    cacheWrite * (pricing.cacheWrite ?? pricing.prompt) +
    (completion > 0n ? completion : 0n) * pricing.completion +
    reasoning * (pricing.reasoning ?? pricing.completion);
  return ceilDiv(perMillion, 1_000_000n) + (pricing.request ?? 0n) + BigInt(inputImages) * (pricing.image ?? 0n);
}

/** The most a text call can cost: every prompt token uncached, every allowed output token used. */
export function priceTextCeiling(pricing: EndpointPricing, promptTokens: number, maxOutputTokens: number, inputImages = 0): bigint {
  const outputPrice = pricing.reasoning !== undefined && pricing.reasoning > pricing.completion ? pricing.reasoning : pricing.completion;
  const writePrice = pricing.cacheWrite !== undefined && pricing.cacheWrite > pricing.prompt ? pricing.cacheWrite : pricing.prompt;
  const perMillion = BigInt(promptTokens) * writePrice + BigInt(maxOutputTokens) * outputPrice;
  return ceilDiv(perMillion, 1_000_000n) + (pricing.request ?? 0n) + BigInt(inputImages) * (pricing.image ?? 0n);
}
