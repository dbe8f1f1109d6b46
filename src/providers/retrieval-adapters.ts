import type { ProviderApi } from '../config/types.js';
import type { EmbeddingAdapter, ModerationAdapter, RerankAdapter } from './retrieval-adapter.js';
import { embeddingAdapters, moderationAdapters, rerankAdapters } from './protocols.js';

/** The embeddings protocol of a provider api, or undefined when it has none. */
export function embeddingAdapterOf(api: ProviderApi): EmbeddingAdapter | undefined {
  return (embeddingAdapters as Partial<Record<ProviderApi, EmbeddingAdapter>>)[api];
}

/** The rerank protocol of a provider api, or undefined when it has none. */
export function rerankAdapterOf(api: ProviderApi): RerankAdapter | undefined {
  return (rerankAdapters as Partial<Record<ProviderApi, RerankAdapter>>)[api];
}

/** The moderations protocol of a provider api, or undefined when it has none. */
export function moderationAdapterOf(api: ProviderApi): ModerationAdapter | undefined {
  return (moderationAdapters as Partial<Record<ProviderApi, ModerationAdapter>>)[api];
}
