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
}

export function totalTokens(usage: Usage): number {
  return usage.promptTokens + usage.completionTokens;
}

export const emptyUsage: Readonly<Usage> = Object.freeze({ promptTokens: 0, completionTokens: 0 });
