import type { ProviderApi } from '../config/types.js';
import { falImageAdapter } from './fal/fal-image-adapter.js';
import { geminiSpeechAdapter } from './gemini/create-speech.js';
import { geminiImageAdapter } from './gemini/generate-images.js';
import type { ImageAdapter, SpeechAdapter } from './media-adapter.js';
import { openaiSpeechAdapter } from './openai/create-speech.js';
import { openaiImageAdapter } from './openai/generate-images.js';

const speechAdapters: Partial<Record<ProviderApi, SpeechAdapter>> = { openai: openaiSpeechAdapter, gemini: geminiSpeechAdapter };
const imageAdapters: Partial<Record<ProviderApi, ImageAdapter>> = { openai: openaiImageAdapter, gemini: geminiImageAdapter, fal: falImageAdapter };

/** The speech protocol of a provider api, or undefined when it has none (anthropic, fal). */
export function speechAdapterOf(api: ProviderApi): SpeechAdapter | undefined {
  return speechAdapters[api];
}

/** The image protocol of a provider api, or undefined when it has none (anthropic). */
export function imageAdapterOf(api: ProviderApi): ImageAdapter | undefined {
  return imageAdapters[api];
}
