import { describe, expect, it } from 'vitest';
import { mapAnthropicUsage, mergeAnthropicUsage } from './map-usage.js';

describe('mapAnthropicUsage', () => {
  it('adds cache reads and writes to input_tokens, which excludes them', () => {
    expect(
      mapAnthropicUsage({ input_tokens: 12, cache_read_input_tokens: 1800, cache_creation_input_tokens: 248, output_tokens: 25 }),
    ).toEqual({ promptTokens: 2060, cachedPromptTokens: 1800, cacheWritePromptTokens: 248, completionTokens: 25 });
  });

  it('leaves the cache fields out when nothing was cached and tolerates nulls', () => {
    expect(mapAnthropicUsage({ input_tokens: 21, cache_read_input_tokens: null, cache_creation_input_tokens: 0, output_tokens: 13 })).toEqual({
      promptTokens: 21,
      completionTokens: 13,
    });
  });

  it('reports thinking tokens as reasoning tokens, still counted in completion tokens', () => {
    const usage = mapAnthropicUsage({ input_tokens: 46, output_tokens: 187, output_tokens_details: { thinking_tokens: 142 } });
    expect(usage.reasoningTokens).toBe(142);
    expect(usage.completionTokens).toBe(187);
  });

  it('gives estimated zeros when no count was reported, for the gateway to count itself', () => {
    expect(mapAnthropicUsage(undefined)).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
    expect(mapAnthropicUsage({ input_tokens: null, output_tokens: null })).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
  });
});

describe('mergeAnthropicUsage', () => {
  it('replaces counts with the cumulative delta values and keeps what the delta leaves null', () => {
    const start = { input_tokens: 472, cache_read_input_tokens: 100, output_tokens: 2 };
    const merged = mergeAnthropicUsage(start, { input_tokens: null, cache_read_input_tokens: null, output_tokens: 89 });
    expect(merged).toEqual({ input_tokens: 472, cache_read_input_tokens: 100, output_tokens: 89 });
    expect(start.output_tokens).toBe(2);
  });

  it('takes thinking token details from the delta', () => {
    const merged = mergeAnthropicUsage({ output_tokens: 4 }, { output_tokens: 187, output_tokens_details: { thinking_tokens: 142 } });
    expect(mapAnthropicUsage(merged).reasoningTokens).toBe(142);
  });
});
