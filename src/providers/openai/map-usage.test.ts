import { describe, expect, it } from 'vitest';
import { mapUsage } from './map-usage.js';

describe('mapUsage', () => {
  it('reads OpenAI counts with cached and reasoning details', () => {
    expect(
      mapUsage({
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 256, audio_tokens: 0 },
      }),
    ).toEqual({ promptTokens: 2006, completionTokens: 300, cachedPromptTokens: 1920, reasoningTokens: 256 });
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cached prompt tokens", () => {
    expect(mapUsage({ prompt_tokens: 1530, completion_tokens: 9, prompt_cache_hit_tokens: 1472, prompt_cache_miss_tokens: 58 })).toEqual({
      promptTokens: 1530,
      completionTokens: 9,
      cachedPromptTokens: 1472,
    });
  });

  it('prefers prompt_tokens_details.cached_tokens when both are sent', () => {
    const usage = mapUsage({ prompt_tokens: 100, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 64 }, prompt_cache_hit_tokens: 60 });
    expect(usage?.cachedPromptTokens).toBe(64);
  });

  it('reads cache writes', () => {
    const usage = mapUsage({ prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cache_write_tokens: 2048 } });
    expect(usage?.cacheWritePromptTokens).toBe(2048);
  });

  it('adds no optional fields the provider did not send', () => {
    expect(Object.keys(mapUsage({ prompt_tokens: 3, completion_tokens: 4 }) ?? {})).toEqual(['promptTokens', 'completionTokens']);
  });

  it('answers undefined when there are no counts', () => {
    expect(mapUsage(null)).toBeUndefined();
    expect(mapUsage(undefined)).toBeUndefined();
    expect(mapUsage({})).toBeUndefined();
    expect(mapUsage({ prompt_tokens: '12', completion_tokens: null })).toBeUndefined();
    expect(mapUsage([1, 2])).toBeUndefined();
  });

  it('treats a missing side as zero', () => {
    expect(mapUsage({ prompt_tokens: 12 })).toEqual({ promptTokens: 12, completionTokens: 0 });
  });
});
