import type { Usage } from '../../core/usage.js';
import { createEstimatedUsage } from '../shared/create-estimated-usage.js';
import type { ConverseUsage } from './wire-types.js';

/**
 * Converse usage → canonical usage. `inputTokens` counts only the uncached part of the prompt;
 * cache reads and writes are reported beside it (`cacheReadInputTokens`,
 * `cacheWriteInputTokens`), so the canonical prompt total is their sum and each cache count goes
 * to its own price. https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 * Without any count the usage is marked estimated, for the gateway to count itself.
 */
export function mapConverseUsage(usage: ConverseUsage | undefined): Usage {
  if (!usage || (typeof usage.inputTokens !== 'number' && typeof usage.outputTokens !== 'number')) return createEstimatedUsage();
  const cacheRead = count(usage.cacheReadInputTokens);
  const cacheWrite = count(usage.cacheWriteInputTokens);
  const result: Usage = { promptTokens: count(usage.inputTokens) + cacheRead + cacheWrite, completionTokens: count(usage.outputTokens) };
  if (cacheRead > 0) result.cachedPromptTokens = cacheRead;
  if (cacheWrite > 0) result.cacheWritePromptTokens = cacheWrite;
  return result;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
