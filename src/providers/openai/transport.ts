import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * Where and how a Chat Completions call goes, apart from its body: shared by the translating
 * adapter and the pass-through.
 */
export function chatCompletionsUrl(provider: ProviderConfig, providerModel: string): string {
  return openaiOperationUrl(provider, providerModel, 'chat/completions');
}

/**
 * An OpenAI operation (`chat/completions`, `images/generations`, `audio/speech`) for a model:
 * under the base URL, or on Azure's deployment API under the deployment the model names, with
 * the `api-version` Azure requires there.
 */
export function openaiOperationUrl(provider: ProviderConfig, providerModel: string, operation: string): string {
  const base = provider.baseUrl.replace(/\/+$/, '');
  const apiVersion = provider.platform?.kind === 'azure' ? provider.platform.apiVersion : undefined;
  if (apiVersion === undefined) return `${base}/${operation}`;
  return `${base}/deployments/${encodeURIComponent(providerModel)}/${operation}?api-version=${encodeURIComponent(apiVersion)}`;
}

/** Local servers (Ollama, vLLM) often run without a key: their auth is `none`, so no header. */
export function authorizationHeaders(provider: ProviderConfig): Promise<Record<string, string>> {
  return authHeaders(provider.auth);
}
