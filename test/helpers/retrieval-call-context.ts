import { Agent } from 'undici';
import type { ProviderApi, ProviderConfig } from '../../src/config/types.js';
import type { CallContext } from '../../src/providers/provider-adapter.js';

/** A call context for one retrieval adapter against a base URL (the simulator's), with a bearer key. */
export function retrievalCallContext(api: ProviderApi, baseUrl: string, providerModel: string, dispatcher: Agent, token = 'sim-key'): CallContext {
  const provider: ProviderConfig = {
    id: api,
    name: api,
    api,
    baseUrl,
    auth: { kind: 'bearer', token },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 1000, firstByteMs: 5000, idleMs: 5000 },
  };
  return { provider, providerModel, signal: new AbortController().signal, dispatcher };
}
