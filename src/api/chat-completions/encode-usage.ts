import { nanoToUsd } from '../../core/money.js';
import { executorUsage, totalTokens, type Usage } from '../../core/usage.js';

/** OpenAI's `usage` object, plus OpenRouter's `cost` in USD. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
  /** Searches the gateway ran for this answer (contract §4a), named as Anthropic's usage names them. */
  server_tool_use?: { web_search_requests: number };
  /**
   * The passes another model served inside the call (Anthropic's advisor tool), apart from the
   * counts above, which are the requested model's own; a gateway extension (OpenAI's usage has no
   * place for them), priced in `cost`.
   */
  advisor_usage?: Array<{ model: string; prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number } }>;
  cost?: number;
}

/** Token counts keep OpenAI's meaning: `prompt_tokens` includes the cached ones. */
export function encodeUsage(usage: Usage, cost: bigint | undefined): ChatUsage {
  const own = executorUsage(usage);
  const encoded: ChatUsage = {
    ...encodeCounts(own),
    completion_tokens_details: { reasoning_tokens: own.reasoningTokens ?? 0 },
  };
  if (usage.delegated) encoded.advisor_usage = usage.delegated.map((part) => ({ model: part.model, ...encodeCounts(part) }));
  if (usage.webSearchRequests !== undefined) encoded.server_tool_use = { web_search_requests: usage.webSearchRequests };
  if (cost !== undefined) encoded.cost = nanoToUsd(cost);
  return encoded;
}

function encodeCounts(usage: Omit<Usage, 'delegated'>): Pick<ChatUsage, 'prompt_tokens' | 'completion_tokens' | 'total_tokens' | 'prompt_tokens_details'> {
  const promptDetails: ChatUsage['prompt_tokens_details'] = { cached_tokens: usage.cachedPromptTokens ?? 0 };
  if (usage.cacheWritePromptTokens) promptDetails.cache_write_tokens = usage.cacheWritePromptTokens;
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: totalTokens(usage), prompt_tokens_details: promptDetails };
}
