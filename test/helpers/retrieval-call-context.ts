import type { ProviderApi, ProviderConfig } from '../../src/config/types.js';
import type { CallContext } from '../../src/providers/provider-adapter.js';
import { createProviderDispatcher, type ProviderDispatcher } from '../../src/providers/shared/send-request.js';

const dispatchers: ProviderDispatcher[] = [];

/**
 * A call context for one retrieval adapter against a base URL (the simulator's), with a bearer
 * key and the gateway's own pooled dispatcher for the provider.
 */
export function retrievalCallContext(api: ProviderApi, baseUrl: string, providerModel: string, token = 'sim-key'): CallContext {
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
  const dispatcher = createProviderDispatcher(provider);
  dispatchers.push(dispatcher);
  return { provider, providerModel, signal: new AbortController().signal, dispatcher };
}

/** Closes the dispatchers the contexts opened. */
export async function closeRetrievalDispatchers(): Promise<void> {
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.close()));
}
