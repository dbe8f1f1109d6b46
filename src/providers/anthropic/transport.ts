import type { ProviderConfig } from '../../config/types.js';
import { authHeaders } from '../shared/auth-headers.js';

/** https://platform.claude.com/docs/en/api/versioning */
const anthropicVersion = '2023-06-01';

/**
 * Where and how an Anthropic Messages call goes, apart from its body: shared by the translating
 * adapter and the pass-through, and by any later transport of the same wire (Vertex, Bedrock)
 * that keeps the converters and swaps these.
 */
export function messagesUrl(provider: ProviderConfig): string {
  return `${provider.baseUrl.replace(/\/+$/, '')}/v1/messages`;
}

/** The provider's key and version; the betas a Messages client asked for travel on, as Anthropic's SDK sends them. */
export function messagesHeaders(provider: ProviderConfig, betas: readonly string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = { ...authHeaders(provider.auth), 'anthropic-version': anthropicVersion };
  if (betas && betas.length > 0) headers['anthropic-beta'] = betas.join(',');
  return headers;
}
