import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * Where and how a Chat Completions call goes, apart from its body: shared by the translating
 * adapter and the pass-through.
 */
export function chatCompletionsUrl(provider: ProviderConfig): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** Local servers (Ollama, vLLM) often run without a key: their auth is `none`, so no header. */
export function authorizationHeaders(provider: ProviderConfig): Record<string, string> {
  return authHeaders(provider.auth);
}
