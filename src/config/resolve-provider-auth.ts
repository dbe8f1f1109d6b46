import type { ProviderApi, ProviderAuth, ProviderPlatform } from './types.js';

/**
 * Where each protocol's vendor expects its API key. A `Record` over every protocol, so a protocol
 * added to the descriptor does not compile until its key's place is stated here.
 */
const keyPlacement: Record<ProviderApi, (key: string) => ProviderAuth> = {
  openai: (token) => ({ kind: 'bearer', token }),
  anthropic: (key) => ({ kind: 'api-key-header', header: 'x-api-key', key }),
  gemini: (key) => ({ kind: 'api-key-header', header: 'x-goog-api-key', key }),
  fal: (key) => ({ kind: 'api-key-header', header: 'authorization', scheme: 'Key', key }),
};

/** Where each cloud expects the key of the protocol it hosts. */
const platformKeyPlacement: Record<ProviderPlatform['kind'], (key: string) => ProviderAuth> = {
  // https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#authentication
  azure: (key) => ({ kind: 'api-key-header', header: 'api-key', key }),
};

/** A provider's authentication from its protocol, platform and `api_key`; no key (or an empty one) sends none. */
export function resolveProviderAuth(api: ProviderApi, key: string | undefined, platform?: ProviderPlatform): ProviderAuth {
  if (!key) return { kind: 'none' };
  return platform ? platformKeyPlacement[platform.kind](key) : keyPlacement[api](key);
}
