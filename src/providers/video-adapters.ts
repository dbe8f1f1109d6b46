import type { ProviderApi } from '../config/types.js';
import { videoAdapters } from './protocols.js';
import type { VideoProviderAdapter } from './video-adapter.js';

/** The video protocol of a provider API, or undefined when that API has none here (anthropic, fal). */
export function videoAdapterFor(api: ProviderApi): VideoProviderAdapter | undefined {
  return (videoAdapters as Partial<Record<ProviderApi, VideoProviderAdapter>>)[api];
}
