import type { ProviderApi } from '../config/types.js';
import { veoVideosAdapter } from './gemini/veo-adapter.js';
import { openaiVideosAdapter } from './openai/videos-adapter.js';
import type { VideoProviderAdapter } from './video-adapter.js';

const videoAdapters: Partial<Record<ProviderApi, VideoProviderAdapter>> = {
  openai: openaiVideosAdapter,
  gemini: veoVideosAdapter,
};

/** The video protocol of a provider API, or undefined when that API has none here (anthropic, fal). */
export function videoAdapterFor(api: ProviderApi): VideoProviderAdapter | undefined {
  return videoAdapters[api];
}
