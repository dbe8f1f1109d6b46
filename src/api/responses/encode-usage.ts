import { nanoToUsd } from '../../core/money.js';
import type { Usage } from '../../core/usage.js';
import type { ResponseUsageWire } from './responses-wire.js';

/** Canonical usage (+ cost in nano-USD) → the Responses `usage` object, cost in USD. */
export function encodeUsage(usage: Usage, cost: bigint | undefined): ResponseUsageWire {
  const wire: ResponseUsageWire = {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0, cache_write_tokens: usage.cacheWritePromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  // Searches the gateway ran for this answer (contract §4a), named as Anthropic's usage names them.
  if (usage.webSearchRequests !== undefined) wire.server_tool_use = { web_search_requests: usage.webSearchRequests };
  if (cost !== undefined) wire.cost = nanoToUsd(cost);
  return wire;
}
