import type { ProviderApi } from '../config/types.js';
import { anthropicBatchAdapter } from './anthropic/batch-adapter.js';
import type { ProviderBatchAdapter } from './batch-adapter.js';

/** The protocols with a batch API of their own, each entry on its own line. */
const batchAdapters: Partial<Record<ProviderApi, ProviderBatchAdapter>> = {
  anthropic: anthropicBatchAdapter,
};

/** The batch API of a provider api, or undefined when it has none (its lines run on the gateway's engine). */
export function providerBatchAdapterOf(api: ProviderApi): ProviderBatchAdapter | undefined {
  return batchAdapters[api];
}
