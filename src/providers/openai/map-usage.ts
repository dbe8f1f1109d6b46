import type { Usage } from '../../core/usage.js';
import { asNumber, asRecord } from '../shared/lenient-json.js';

/**
 * Chat Completions `usage` → canonical, or undefined when the object carries no token counts.
 * `prompt_tokens` already includes cached tokens, as canonical `promptTokens` does. DeepSeek
 * reports cache reads as `prompt_cache_hit_tokens` (https://api-docs.deepseek.com/guides/kv_cache),
 * Moonshot as a top-level `cached_tokens` (https://platform.moonshot.ai/docs/api/chat).
 *
 * xAI counts reasoning OUTSIDE `completion_tokens` (`total_tokens` = prompt + completion +
 * reasoning), where OpenAI counts it inside. Both are billed as output, so when the total says
 * reasoning was left out it is added back: canonical completion always includes reasoning.
 */
export function mapUsage(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (!usage) return undefined;
  const promptTokens = asNumber(usage.prompt_tokens);
  const completionTokens = asNumber(usage.completion_tokens);
  if (promptTokens === undefined && completionTokens === undefined) return undefined;

  const promptDetails = asRecord(usage.prompt_tokens_details);
  const completionDetails = asRecord(usage.completion_tokens_details);
  const mapped: Usage = { promptTokens: promptTokens ?? 0, completionTokens: completionTokens ?? 0 };
  const cached = asNumber(promptDetails?.cached_tokens) ?? asNumber(usage.prompt_cache_hit_tokens) ?? asNumber(usage.cached_tokens);
  const cacheWrite = asNumber(promptDetails?.cache_write_tokens);
  const reasoning = asNumber(completionDetails?.reasoning_tokens);
  if (cached !== undefined) mapped.cachedPromptTokens = cached;
  if (cacheWrite !== undefined) mapped.cacheWritePromptTokens = cacheWrite;
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  if (reasoning && reportsReasoningApart(mapped, asNumber(usage.total_tokens))) mapped.completionTokens += reasoning;
  return mapped;
}

function reportsReasoningApart(usage: Usage, total: number | undefined): boolean {
  if (total === undefined || !usage.reasoningTokens) return false;
  const sum = usage.promptTokens + usage.completionTokens;
  return sum !== total && sum + usage.reasoningTokens === total;
}
