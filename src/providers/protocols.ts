import type { ImageAdapter, SpeechAdapter } from './media-adapter.js';
import type { EmbeddingAdapter, ModerationAdapter, RerankAdapter } from './retrieval-adapter.js';
import type { ProviderApi, TextProviderApi, protocolDescriptors } from '../core/protocol-descriptor.js';
import type { TextProviderAdapter } from './provider-adapter.js';
import type { VideoProviderAdapter } from './video-adapter.js';
import { anthropicAdapter } from './anthropic/anthropic-adapter.js';
import { bedrockAdapter } from './bedrock/bedrock-adapter.js';
import { falImageAdapter } from './fal/fal-image-adapter.js';
import { geminiSpeechAdapter } from './gemini/create-speech.js';
import { geminiAdapter } from './gemini/gemini-adapter.js';
import { geminiImageAdapter } from './gemini/generate-images.js';
import { veoVideosAdapter } from './gemini/veo-adapter.js';
import { openaiEmbeddingAdapter } from './openai/create-embeddings.js';
import { openaiSpeechAdapter } from './openai/create-speech.js';
import { openaiAdapter } from './openai/openai-adapter.js';
import { openaiImageAdapter } from './openai/generate-images.js';
import { openaiVideosAdapter } from './openai/videos-adapter.js';

/** The protocols of `core/protocol-descriptor.ts` that can serve `capability`. */
type Serving<Capability extends 'speech' | 'images' | 'video' | 'embeddings' | 'rerank' | 'moderations'> = {
  [Api in ProviderApi]: (typeof protocolDescriptors)[Api][Capability] extends true ? Api : never;
}[ProviderApi];

/**
 * The adapters of each protocol, by what it serves. Each record must hold exactly the protocols
 * the descriptor says serve that capability: a protocol added to the descriptor without its
 * adapter (or an adapter for a protocol that does not claim the capability) does not compile.
 */
export const textAdapters: Record<TextProviderApi, TextProviderAdapter> = { openai: openaiAdapter, anthropic: anthropicAdapter, gemini: geminiAdapter, bedrock: bedrockAdapter };
export const speechAdapters: Record<Serving<'speech'>, SpeechAdapter> = { openai: openaiSpeechAdapter, gemini: geminiSpeechAdapter };
export const imageAdapters: Record<Serving<'images'>, ImageAdapter> = { openai: openaiImageAdapter, gemini: geminiImageAdapter, fal: falImageAdapter };
export const videoAdapters: Record<Serving<'video'>, VideoProviderAdapter> = { openai: openaiVideosAdapter, gemini: veoVideosAdapter };
export const embeddingAdapters: Record<Serving<'embeddings'>, EmbeddingAdapter> = { openai: openaiEmbeddingAdapter };
export const rerankAdapters: Record<Serving<'rerank'>, RerankAdapter> = {};
export const moderationAdapters: Record<Serving<'moderations'>, ModerationAdapter> = {};
