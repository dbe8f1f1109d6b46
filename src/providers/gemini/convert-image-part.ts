import type { ImagePart } from '../../core/content.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import type { GeminiPart } from './gemini-wire-types.js';

const mimeTypesByExtension: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

/**
 * Inline bytes (and data: URLs) go as `inlineData`; any other URL as `fileData`, which Gemini
 * fetches itself and which requires a `mimeType`. OpenAI's `detail` has no Gemini field and is
 * only a hint, so it is not sent. https://ai.google.dev/gemini-api/docs/image-understanding
 */
export function convertImagePart(part: ImagePart): GeminiPart {
  const { source } = part;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  if (source.url.startsWith('data:')) return { inlineData: parseDataUrl(source.url) };
  return { fileData: { fileUri: source.url, mimeType: guessImageMimeType(source.url) } };
}

function parseDataUrl(url: string): { mimeType: string; data: string } {
  const comma = url.indexOf(',');
  const [mimeType, ...flags] = url.slice('data:'.length, comma).split(';');
  if (comma < 0 || !mimeType || !flags.includes('base64')) {
    throw invalidRequest('Image data URLs must have the form data:<media type>;base64,<data>.', 'messages');
  }
  return { mimeType, data: url.slice(comma + 1) };
}

/** From the path's extension; JPEG when there is none we know, as most images on the web are. */
export function guessImageMimeType(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not an absolute URL: use the text as it is.
  }
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return mimeTypesByExtension[extension] ?? 'image/jpeg';
}
