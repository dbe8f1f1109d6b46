import { nanoToUsd } from '../../core/money.js';
import type { Usage } from '../../core/usage.js';

import type { MessagesUsage } from '../../providers/anthropic/wire-types.js';

/**
 * Anthropic counts `input_tokens` WITHOUT the tokens read from or written to the prompt cache
 * (total input = input + cache_creation + cache_read), whereas canonical `promptTokens` includes
 * them. https://docs.anthropic.com/en/api/messages#response-usage
 */
export function encodeUsage(usage: Usage, cost: bigint | undefined): MessagesUsage {
  const cacheRead = usage.cachedPromptTokens ?? 0;
  const cacheWrite = usage.cacheWritePromptTokens ?? 0;
  const encoded: MessagesUsage = {
    input_tokens: Math.max(0, usage.promptTokens - cacheRead - cacheWrite),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
  if (usage.reasoningTokens !== undefined) encoded.output_tokens_details = { thinking_tokens: usage.reasoningTokens };
  if (usage.webSearchRequests !== undefined) encoded.server_tool_use = { web_search_requests: usage.webSearchRequests };
  if (cost !== undefined) encoded.cost = nanoToUsd(cost);
  return encoded;
}
