import { describe, expect, it } from 'vitest';
import { priceTextCeiling, priceTextUsage } from './pricing.js';

const pricing = { prompt: 3_000_000_000n, completion: 15_000_000_000n, cachedPrompt: 300_000_000n, cacheWrite: 3_750_000_000n };

describe('text pricing', () => {
  it('prices uncached, cached, cache-write and completion tokens exactly', () => {
    // 1,000 uncached × $3/M + 200 cached × $0.30/M + 100 written × $3.75/M + 500 out × $15/M
    const cost = priceTextUsage(pricing, { promptTokens: 1300, cachedPromptTokens: 200, cacheWritePromptTokens: 100, completionTokens: 500 });
    expect(cost).toBe(3_000_000n + 60_000n + 375_000n + 7_500_000n);
  });

  it('rounds the total up once, not each component', () => {
    expect(priceTextUsage({ prompt: 1n, completion: 1n }, { promptTokens: 1, completionTokens: 1 })).toBe(1n);
    expect(priceTextUsage({ prompt: 150_000_000n, completion: 600_000_000n }, { promptTokens: 3, completionTokens: 0 })).toBe(450n);
  });

  it('adds per-request and per-image prices, and prices reasoning apart when configured', () => {
    const withExtras = { prompt: 0n, completion: 1_000_000n, request: 5n, image: 7n, reasoning: 2_000_000n };
    expect(priceTextUsage(withExtras, { promptTokens: 0, completionTokens: 10, reasoningTokens: 4 }, 2)).toBe(6n + 8n + 5n + 14n);
  });

  it('puts a ceiling above any usage within the limits', () => {
    const ceiling = priceTextCeiling(pricing, 1300, 500);
    expect(ceiling).toBeGreaterThanOrEqual(priceTextUsage(pricing, { promptTokens: 1300, completionTokens: 500, cacheWritePromptTokens: 1300 }));
  });
});
