import type { ProviderApi } from '../config/types.js';
import { anthropicBatchAdapter } from './anthropic/batch-adapter.js';
import type { ProviderBatchAdapter } from './batch-adapter.js';
import { geminiBatchAdapter } from './gemini/batch-adapter.js';
import { openaiBatchAdapter } from './openai/batch-adapter.js';

/** The provider batch API of each wire protocol that has one (`batch-adapter.ts`), for the batch engine; each entry on its own line. */
export const providerBatchAdapters: Partial<Record<ProviderApi, ProviderBatchAdapter>> = {
  anthropic: anthropicBatchAdapter,
  gemini: geminiBatchAdapter,
  openai: openaiBatchAdapter,
};

/** The batch API of a provider api, or undefined when it has none (its lines run on the gateway's engine). */
export function providerBatchAdapterOf(api: ProviderApi): ProviderBatchAdapter | undefined {
  return providerBatchAdapters[api];
}
