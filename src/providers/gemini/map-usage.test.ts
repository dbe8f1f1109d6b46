import { describe, expect, it } from 'vitest';
import { mapUsage } from './map-usage.js';

describe('mapUsage', () => {
  it('counts thinking as completion and keeps cached tokens inside the prompt count', () => {
    expect(mapUsage({ promptTokenCount: 1000, cachedContentTokenCount: 800, candidatesTokenCount: 50, thoughtsTokenCount: 200, totalTokenCount: 1250 })).toEqual({
      promptTokens: 1000,
      cachedPromptTokens: 800,
      completionTokens: 250,
      reasoningTokens: 200,
    });
  });

  it('leaves out the optional counts Gemini did not send', () => {
    expect(mapUsage({ promptTokenCount: 12, candidatesTokenCount: 3 })).toEqual({ promptTokens: 12, completionTokens: 3 });
    expect(mapUsage({ promptTokenCount: 9, totalTokenCount: 9 })).toEqual({ promptTokens: 9, completionTokens: 0 });
  });

  it('gives estimated zeros when no count was reported, for the gateway to count itself', () => {
    expect(mapUsage(undefined)).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
    expect(mapUsage({ totalTokenCount: 0 })).toEqual({ promptTokens: 0, completionTokens: 0, estimated: true });
  });
});
