import type { GeminiPart } from './gemini-wire-types.js';
import type { GeneratedImage, ImageRequest } from '../../core/image-request.js';
import type { ImageAdapter } from '../media-adapter.js';
import type { CallContext } from '../provider-adapter.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { generateContent } from './generate-content.js';
import { asObjects } from '../shared/lenient-json.js';

/**
 * Gemini image models: `generateContent` with `responseModalities: ["TEXT", "IMAGE"]` and an
 * `imageConfig` (aspect ratio, image size); edit inputs go in as `inlineData` parts before the
 * prompt. One call makes one image, so `n` images are `n` calls.
 * https://ai.google.dev/gemini-api/docs/image-generation
 */
export const geminiImageAdapter: ImageAdapter = {
  api: 'gemini',
  incapability(request) {
    if (request.size !== undefined) return { field: 'size', reason: 'is not supported by Gemini image models; use aspect_ratio and resolution' };
    if (request.quality !== undefined) return { field: 'quality', reason: 'is not supported by Gemini image models' };
    return undefined;
  },
  async start(request, context) {
    const calls = Array.from({ length: request.n }, () => generateOne(request, context));
    return { state: 'completed', images: await Promise.all(calls) };
  },
};

async function generateOne(request: ImageRequest, context: CallContext): Promise<GeneratedImage> {
  const imageConfig: Record<string, string> = {};
  if (request.aspectRatio !== undefined) imageConfig.aspectRatio = request.aspectRatio;
  if (request.resolution !== undefined) imageConfig.imageSize = request.resolution;
  const body = {
    contents: [
      {
        role: 'user',
        parts: [...request.images.map((image) => ({ inlineData: { mimeType: image.contentType, data: image.bytes.toString('base64') } })), { text: request.prompt }],
      },
    ],
    generationConfig: { responseModalities: ['TEXT', 'IMAGE'], ...(Object.keys(imageConfig).length > 0 ? { imageConfig } : {}) },
  };
  const result = await generateContent(context, body);
  const candidate = result.candidates?.[0];
  for (const part of asObjects<GeminiPart>(candidate?.content?.parts)) {
    if (part.inlineData && /^image\//i.test(part.inlineData.mimeType) && part.inlineData.data) {
      return { bytes: Buffer.from(part.inlineData.data, 'base64'), contentType: part.inlineData.mimeType.toLowerCase() };
    }
  }
  // No image: a safety block or a refusal, which retrying elsewhere would not change.
  const reason = result.promptFeedback?.blockReason ?? candidate?.finishReason ?? 'no image in the answer';
  throw new UpstreamError({ provider: context.provider.id, status: 400, message: `${context.provider.id} made no image (${reason})`, retryable: false });
}
