import { nanoToUsd } from '../../core/money.js';
import { executorUsage, type Usage } from '../../core/usage.js';

import type { MessagesUsage } from '../../wire/anthropic/wire-types.js';

/**
 * Anthropic counts `input_tokens` WITHOUT the tokens read from or written to the prompt cache
 * (total input = input + cache_creation + cache_read), whereas canonical `promptTokens` includes
 * them. https://docs.anthropic.com/en/api/messages#response-usage
 * The top-level counts are the requested model's own, as Anthropic reports them beside the
 * advisor tool; passes another model served are listed in `usage.iterations` as Anthropic lists
 * them (`advisor_message` with its model), after one `message` entry of the model's own counts.
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/advisor-tool
 */
export function encodeUsage(usage: Usage, cost: bigint | undefined): MessagesUsage {
  const encoded = encodeRelayedUsage(usage, cost);
  if (usage.delegated) {
    encoded.iterations = [
      { type: 'message', ...encodeCounts(executorUsage(usage)) },
      ...usage.delegated.map((part) => ({ type: 'advisor_message', model: part.model, ...encodeCounts(part) })),
    ];
  }
  return encoded;
}

/**
 * The same without `iterations`, for a relayed answer: written over the provider's own `usage`,
 * it keeps Anthropic's `iterations` as they came, pass by pass.
 */
export function encodeRelayedUsage(usage: Usage, cost: bigint | undefined): MessagesUsage {
  const own = executorUsage(usage);
  const encoded: MessagesUsage = encodeCounts(own);
  if (own.reasoningTokens !== undefined) encoded.output_tokens_details = { thinking_tokens: own.reasoningTokens };
  if (own.webSearchRequests !== undefined) encoded.server_tool_use = { web_search_requests: own.webSearchRequests };
  if (cost !== undefined) encoded.cost = nanoToUsd(cost);
  return encoded;
}

function encodeCounts(usage: Omit<Usage, 'delegated'>): MessagesUsage {
  const cacheRead = usage.cachedPromptTokens ?? 0;
  const cacheWrite = usage.cacheWritePromptTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - cacheRead - cacheWrite),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}
