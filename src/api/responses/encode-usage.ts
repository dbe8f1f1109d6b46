import { nanoToUsd } from '../../core/money.js';
import { executorUsage, totalTokens, type Usage } from '../../core/usage.js';
import type { ResponseUsageWire } from './responses-wire.js';

/** Canonical usage (+ cost in nano-USD) → the Responses `usage` object, cost in USD. */
export function encodeUsage(usage: Usage, cost: bigint | undefined): ResponseUsageWire {
  const own = executorUsage(usage);
  const wire: ResponseUsageWire = {
    ...encodeCounts(own),
    output_tokens_details: { reasoning_tokens: own.reasoningTokens ?? 0 },
  };
  // The passes another model served (Anthropic's advisor tool), apart from the model's own counts.
  if (usage.delegated) wire.advisor_usage = usage.delegated.map((part) => ({ model: part.model, ...encodeCounts(part) }));
  // Searches the gateway ran for this answer (contract §4a), named as Anthropic's usage names them.
  if (usage.webSearchRequests !== undefined) wire.server_tool_use = { web_search_requests: usage.webSearchRequests };
  if (cost !== undefined) wire.cost = nanoToUsd(cost);
  return wire;
}

function encodeCounts(usage: Omit<Usage, 'delegated'>): Pick<ResponseUsageWire, 'input_tokens' | 'input_tokens_details' | 'output_tokens' | 'total_tokens'> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0, cache_write_tokens: usage.cacheWritePromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    total_tokens: totalTokens(usage),
  };
}
