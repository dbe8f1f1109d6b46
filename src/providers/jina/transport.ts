import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * A Jina operation (`embeddings`, `rerank`) under the base URL (`https://api.jina.ai/v1`), with
 * `Authorization: Bearer` (https://api.jina.ai/openapi.json, "Authentication").
 */
export function jinaOperationUrl(provider: ProviderConfig, operation: 'embeddings' | 'rerank'): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/${operation}`;
}

export function authorizationHeaders(provider: ProviderConfig): Promise<Record<string, string>> {
  return authHeaders(provider.auth);
}
