import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * A Voyage operation (`embeddings`, `rerank`) under the base URL (`https://api.voyageai.com/v1`),
 * with `Authorization: Bearer` (https://docs.voyageai.com/reference/embeddings-api).
 */
export function voyageOperationUrl(provider: ProviderConfig, operation: 'embeddings' | 'rerank'): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/${operation}`;
}

export function authorizationHeaders(provider: ProviderConfig): Promise<Record<string, string>> {
  return authHeaders(provider.auth);
}
