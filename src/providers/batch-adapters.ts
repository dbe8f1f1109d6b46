import type { ProviderApi } from '../config/types.js';
import type { ProviderBatchAdapter } from './batch-adapter.js';
import { openaiBatchAdapter } from './openai/batch-adapter.js';

/** The provider batch API of each wire protocol that has one (`batch-adapter.ts`), for the batch engine. */
export const providerBatchAdapters: Partial<Record<ProviderApi, ProviderBatchAdapter>> = {
  openai: openaiBatchAdapter,
};
