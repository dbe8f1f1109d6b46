import type { AppContext } from '../../app-context.js';
import type { ImageInput, ImageResponseFormat } from '../../core/image-request.js';
import { nanoToUsd } from '../../core/money.js';
import { mediaFilePath, readMediaFile } from '../../media/media-files.js';

export type ImageDatum = { b64_json: string } | { url: string };

/** OpenAI's images shape; `usage` says how many images were charged and what they cost (USD). */
export function encodeImagesResponse(created: number, data: ImageDatum[], cost: bigint): Record<string, unknown> {
  return { created, data, usage: { images: data.length, cost: nanoToUsd(cost) } };
}

export function inlineImages(images: ImageInput[]): ImageDatum[] {
  return images.map((image) => ({ b64_json: image.bytes.toString('base64') }));
}

/** Stored files as the client asked for them: gateway URLs (absolute, on the origin the client used) or inline base64. */
export async function storedImages(context: AppContext, accountId: string, ids: string[], format: ImageResponseFormat, origin: string): Promise<ImageDatum[]> {
  if (format === 'url') return ids.map((id) => ({ url: `${origin}${mediaFilePath(id)}` }));
  const files = await Promise.all(ids.map((id) => readMediaFile(context, accountId, id)));
  return files.filter((file) => file !== undefined).map((file) => ({ b64_json: file!.data.toString('base64') }));
}
