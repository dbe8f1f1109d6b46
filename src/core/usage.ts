/**
 * Token usage of one generation. `promptTokens` counts every input token, including the cached
 * ones; `cachedPromptTokens` and `cacheWritePromptTokens` say how many of them were read from
 * or written to a prompt cache. `completionTokens` includes `reasoningTokens`.
 */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  cacheWritePromptTokens?: number;
  reasoningTokens?: number;
  /** True when the provider reported no usage and the gateway counted the tokens itself. */
  estimated?: boolean;
  /**
   * The part of the counts above that another model served inside the same call (Anthropic's
   * advisor tool: `usage.iterations` of type `advisor_message`, each naming its model), priced at
   * that model's price where the catalog knows it.
   */
  delegated?: DelegatedUsage[];
  /** Searches the gateway ran and charged for this answer (contract §4a); failed ones are not counted. */
  webSearchRequests?: number;
  /** The part of the cost that is not tokens: searches at `price_per_search` (nano-USD). */
  toolCost?: bigint;
}

/** Tokens of one pass served by another model; `model` is the provider's own model name. */
export interface DelegatedUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  cacheWritePromptTokens?: number;
}

/**
 * The counts of the model the client asked for: `usage` less the passes another model served
 * (`delegated`). What a client reads as the model's usage; the delegated passes are reported apart.
 */
export function executorUsage(usage: Usage): Usage {
  if (usage.delegated === undefined) return usage;
  const { delegated, ...own } = usage;
  for (const part of delegated) {
    own.promptTokens -= part.promptTokens;
    own.completionTokens -= part.completionTokens;
    own.cachedPromptTokens = (own.cachedPromptTokens ?? 0) - (part.cachedPromptTokens ?? 0);
    own.cacheWritePromptTokens = (own.cacheWritePromptTokens ?? 0) - (part.cacheWritePromptTokens ?? 0);
  }
  return own;
}

export function totalTokens(usage: Usage): number {
  return usage.promptTokens + usage.completionTokens;
}

export const emptyUsage: Readonly<Usage> = Object.freeze({ promptTokens: 0, completionTokens: 0 });
