import type { ServerResponse } from 'node:http';
import { buildPng, colourOf } from './build-png.js';
import { parseSize, sendMediaJson } from './media-response.js';
import { textOf } from './simulate-speech.js';

/**
 * OpenAI images: `POST /images/generations` (JSON) and `/images/edits` (multipart with `image`
 * or `image[]` files). Every image is a flat-coloured PNG of the requested size, its colour taken
 * from the prompt. Answers `b64_json`, as GPT image models do.
 */
export async function answerOpenAiImages(response: ServerResponse, operation: 'generate' | 'edit', raw: Buffer, contentType: string): Promise<string | undefined> {
  let fields: Record<string, unknown>;
  if (operation === 'generate') {
    try {
      fields = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return 'We could not parse the JSON body of your request.';
    }
  } else {
    if (!contentType.startsWith('multipart/form-data')) return 'Image edits take a multipart/form-data body.';
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData().catch(() => undefined);
    if (!form) return 'The multipart body could not be parsed.';
    const images = [...form.getAll('image'), ...form.getAll('image[]')];
    if (images.length === 0) return "'image' is required.";
    for (const image of images) {
      if (typeof image === 'string' || !isImage(Buffer.from(await image.arrayBuffer()))) return 'Each image must be a PNG, JPEG or WebP file.';
    }
    fields = Object.fromEntries([...form.entries()].filter(([, value]) => typeof value === 'string'));
  }
  const prompt = fields.prompt;
  if (typeof prompt !== 'string' || !prompt) return "'prompt' is required.";
  const n = fields.n === undefined ? 1 : Number(fields.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return "'n' must be an integer from 1 to 10.";
  const [width, height] = parseSize(fields.size);
  const png = buildPng(width, height, colourOf(prompt));
  sendMediaJson(response, 200, {
    created: Math.floor(Date.now() / 1000),
    data: Array.from({ length: n }, () => ({ b64_json: png.toString('base64') })),
    usage: { input_tokens: prompt.split(/\s+/).length, output_tokens: 272 * n, total_tokens: prompt.split(/\s+/).length + 272 * n },
  });
  return undefined;
}

/** Gemini image models: one PNG in an `inlineData` part, sized by `imageConfig.aspectRatio`. */
export function answerGeminiImage(response: ServerResponse, body: Record<string, unknown>, model: string): string | undefined {
  const config = body.generationConfig as { responseModalities?: unknown; imageConfig?: { aspectRatio?: unknown } } | undefined;
  if (!Array.isArray(config?.responseModalities) || !config.responseModalities.includes('IMAGE')) return 'Set generationConfig.responseModalities to include "IMAGE".';
  const prompt = textOf(body.contents);
  if (!prompt) return 'contents must hold a text prompt.';
  const ratio = typeof config.imageConfig?.aspectRatio === 'string' ? /^(\d+):(\d+)$/.exec(config.imageConfig.aspectRatio) : null;
  const height = ratio ? Math.round((256 * Number(ratio[2])) / Number(ratio[1])) : 256;
  const png = buildPng(256, height, colourOf(prompt));
  sendMediaJson(response, 200, {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Here is your image.' }, { inlineData: { mimeType: 'image/png', data: png.toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
    modelVersion: model,
  });
  return undefined;
}

export function isImage(bytes: Buffer): boolean {
  const png = bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47;
  const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
  const webp = bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  return png || jpeg || webp;
}
