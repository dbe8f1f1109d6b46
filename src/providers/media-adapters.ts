import type { ProviderApi } from '../config/types.js';
import type { ImageAdapter, SpeechAdapter } from './media-adapter.js';
import { imageAdapters, speechAdapters } from './protocols.js';

/** The speech protocol of a provider api, or undefined when it has none (anthropic, fal). */
export function speechAdapterOf(api: ProviderApi): SpeechAdapter | undefined {
  return (speechAdapters as Partial<Record<ProviderApi, SpeechAdapter>>)[api];
}

/** The image protocol of a provider api, or undefined when it has none (anthropic). */
export function imageAdapterOf(api: ProviderApi): ImageAdapter | undefined {
  return (imageAdapters as Partial<Record<ProviderApi, ImageAdapter>>)[api];
}
