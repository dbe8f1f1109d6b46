import { nanoToUsd } from '../../core/money.js';
import type { Usage } from '../../core/usage.js';

/** Gemini's `usageMetadata`, plus the gateway's `cost` (USD) as the other styles carry it in their usage. */
export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  cost?: number;
}

/**
 * Gemini counts thinking apart from the answer (`candidatesTokenCount` excludes
 * `thoughtsTokenCount`), while canonical completion tokens include the reasoning; the prompt
 * count includes cached tokens, as canonical. https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function encodeUsage(usage: Usage, cost: bigint | undefined): GeminiUsageMetadata {
  const thoughts = usage.reasoningTokens ?? 0;
  const encoded: GeminiUsageMetadata = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: Math.max(0, usage.completionTokens - thoughts),
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedPromptTokens) encoded.cachedContentTokenCount = usage.cachedPromptTokens;
  if (usage.reasoningTokens !== undefined) encoded.thoughtsTokenCount = usage.reasoningTokens;
  if (cost !== undefined) encoded.cost = nanoToUsd(cost);
  return encoded;
}
