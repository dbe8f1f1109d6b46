import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';
import { vertexModelUrl } from '../shared/vertex-model-url.js';

/**
 * Where and how a Gemini API call goes, apart from its body: the model's method URL under the
 * versioned base URL, and the key header. Shared by text, speech and images; Vertex AI would
 * keep the converters and swap these (its URL names project and location, its auth is OAuth).
 * https://ai.google.dev/api/generate-content
 */
export function geminiModelUrl(provider: ProviderConfig, providerModel: string, method: string): string {
  if (provider.platform?.kind === 'vertex') return vertexModelUrl(provider, provider.platform, 'google', providerModel, method);
  return `${provider.baseUrl.replace(/\/+$/, '')}/models/${encodeURIComponent(providerModel)}:${method}`;
}

export function geminiHeaders(provider: ProviderConfig): Promise<Record<string, string>> {
  return authHeaders(provider.auth);
}
