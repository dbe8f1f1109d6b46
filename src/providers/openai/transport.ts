import type { ProviderConfig } from '../../config/types.js';

/**
 * Where and how a Chat Completions call goes, apart from its body: shared by the translating
 * adapter and the pass-through.
 */
export function chatCompletionsUrl(provider: ProviderConfig): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** Local servers (Ollama, vLLM) often run without a key; an empty bearer token would be refused. */
export function authorizationHeaders(provider: ProviderConfig): Record<string, string> {
  return provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {};
}
