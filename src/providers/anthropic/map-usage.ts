import type { DelegatedUsage, Usage } from '../../core/usage.js';
import { createEstimatedUsage } from '../shared/create-estimated-usage.js';
import type { AnthropicUsage } from '../../wire/anthropic/wire-types.js';

const countFields = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

/**
 * Anthropic usage → canonical usage. Anthropic's `input_tokens` counts only the uncached part
 * of the prompt; cache reads and writes are reported beside it, so the canonical prompt total
 * is their sum. https://platform.claude.com/docs/en/build-with-claude/prompt-caching#tracking-cache-performance
 * Without any count the usage is marked estimated, for the gateway to count itself.
 */
export function mapAnthropicUsage(usage: AnthropicUsage | undefined): Usage {
  if (!usage || countFields.every((field) => typeof usage[field] !== 'number')) return createEstimatedUsage();
  const passes = Array.isArray(usage.iterations) ? usage.iterations.filter((pass) => typeof pass === 'object' && pass !== null) : [];
  if (passes.length > 0) return sumPasses(usage, passes);
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const result: Usage = {
    promptTokens: count(usage.input_tokens) + cacheRead + cacheWrite,
    completionTokens: count(usage.output_tokens),
  };
  if (cacheRead > 0) result.cachedPromptTokens = cacheRead;
  if (cacheWrite > 0) result.cacheWritePromptTokens = cacheWrite;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') result.reasoningTokens = thinking;
  return result;
}

/**
 * Compaction runs extra sampling passes whose tokens the top-level counts leave out; each pass
 * is billed, so the canonical usage is their sum. Thinking stays as the top level reports it.
 * https://platform.claude.com/docs/en/build-with-claude/compaction#usage
 */
function sumPasses(usage: AnthropicUsage, passes: AnthropicUsage[]): Usage {
  const total = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const delegated: DelegatedUsage[] = [];
  for (const pass of passes) {
    for (const field of countFields) total[field] += count(pass[field]);
    // The advisor tool's passes run on the advisor model, which names itself; Anthropic bills
    // them at that model's rate (https://platform.claude.com/docs/en/agents-and-tools/tool-use/advisor-tool).
    if (pass.type === 'advisor_message' && typeof pass.model === 'string' && pass.model !== '') {
      const cacheRead = count(pass.cache_read_input_tokens);
      const cacheWrite = count(pass.cache_creation_input_tokens);
      delegated.push({
        model: pass.model,
        promptTokens: count(pass.input_tokens) + cacheRead + cacheWrite,
        completionTokens: count(pass.output_tokens),
        ...(cacheRead > 0 && { cachedPromptTokens: cacheRead }),
        ...(cacheWrite > 0 && { cacheWritePromptTokens: cacheWrite }),
      });
    }
  }
  const mapped = mapAnthropicUsage({ ...total, output_tokens_details: usage.output_tokens_details ?? null });
  return delegated.length > 0 ? { ...mapped, delegated } : mapped;
}

/**
 * Folds a `message_delta` usage into what `message_start` reported. Delta counts are
 * cumulative, not increments, and fields the delta leaves null keep their earlier value.
 * https://platform.claude.com/docs/en/build-with-claude/streaming#event-types
 */
export function mergeAnthropicUsage(current: AnthropicUsage, update: AnthropicUsage | undefined): AnthropicUsage {
  if (!update) return current;
  // Object.assign, not a spread: fields added to a spread copy give it a map of its own (see withFields).
  const merged: AnthropicUsage = Object.assign({}, current);
  for (const key of countFields) {
    const value = update[key];
    if (typeof value === 'number') merged[key] = value;
  }
  if (typeof update.output_tokens_details?.thinking_tokens === 'number') {
    merged.output_tokens_details = update.output_tokens_details;
  }
  if (Array.isArray(update.iterations)) merged.iterations = update.iterations;
  return merged;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
