import { FormData } from 'undici';
import type { GeneratedImage, ImageRequest } from '../../core/image-request.js';
import { sniffImageType } from '../../core/sniff-image-type.js';
import type { ImageAdapter } from '../media-adapter.js';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { authorizationHeaders, openaiOperationUrl } from './transport.js';

interface OpenAIImagesResponse {
  data?: Array<{ b64_json?: string; url?: string }>;
}

/**
 * OpenAI images: POST {base}/images/generations (JSON) and {base}/images/edits (multipart, one
 * `image` or several `image[]` parts, as the official SDK sends them). Answers are synchronous.
 * `response_format` is not sent: GPT image models always answer `b64_json` and refuse the field,
 * while DALL·E answers a URL by default; both are read here.
 * https://platform.openai.com/docs/api-reference/images
 */
export const openaiImageAdapter: ImageAdapter = {
  api: 'openai',
  incapability(request) {
    if (request.aspectRatio !== undefined) return { field: 'aspect_ratio', reason: 'is not supported by OpenAI image models; use size' };
    if (request.resolution !== undefined) return { field: 'resolution', reason: 'is not supported by OpenAI image models; use size' };
    return undefined;
  },
  async start(request, context) {
    const { provider } = context;
    const headers = await authorizationHeaders(provider);
    const response =
      request.operation === 'generate'
        ? await sendUpstream(context, openaiOperationUrl(provider, context.providerModel, 'images/generations'), { method: 'POST', headers, json: generationBody(request, context) })
        : await sendUpstream(context, openaiOperationUrl(provider, context.providerModel, 'images/edits'), { method: 'POST', headers, form: editForm(request, context) });
    const body = await readJsonObject<OpenAIImagesResponse>(provider.id, response);
    return { state: 'completed', images: readImages(body, provider.id) };
  },
};

function generationBody(request: ImageRequest, context: CallContext): Record<string, unknown> {
  const body: Record<string, unknown> = { model: context.providerModel, prompt: request.prompt, n: request.n };
  if (request.size !== undefined) body.size = request.size;
  if (request.quality !== undefined) body.quality = request.quality;
  return body;
}

function editForm(request: ImageRequest, context: CallContext): FormData {
  const form = new FormData();
  form.append('model', context.providerModel);
  form.append('prompt', request.prompt);
  form.append('n', String(request.n));
  if (request.size !== undefined) form.append('size', request.size);
  if (request.quality !== undefined) form.append('quality', request.quality);
  const field = request.images.length === 1 ? 'image' : 'image[]';
  request.images.forEach((image, index) => {
    const extension = image.contentType.split('/')[1] ?? 'png';
    form.append(field, new Blob([image.bytes], { type: image.contentType }), `image-${index}.${extension}`);
  });
  return form;
}

function readImages(body: OpenAIImagesResponse, providerId: string): GeneratedImage[] {
  const images: GeneratedImage[] = [];
  for (const entry of body.data ?? []) {
    if (typeof entry?.b64_json === 'string' && entry.b64_json) {
      const bytes = Buffer.from(entry.b64_json, 'base64');
      images.push({ bytes, contentType: sniffImageType(bytes) ?? 'image/png' });
    } else if (typeof entry?.url === 'string' && entry.url) {
      images.push({ url: entry.url });
    }
  }
  if (images.length === 0) throw createProtocolError(providerId, 'answered without images', JSON.stringify(body).slice(0, 500));
  return images;
}
