import type { ImageRequest } from '../../core/image-request.js';

/**
 * The input of a fal image model. fal's image models share these names (FLUX, Seedream, Nano
 * Banana …): `image_size` as `{width, height}`, `num_images`, `aspect_ratio`, `resolution`, and
 * `image_urls` for edits, which accept data URIs, so edit inputs travel inline.
 * https://fal.ai/models (each model's API tab)
 */
export function convertToFalInput(request: ImageRequest): Record<string, unknown> {
  const input: Record<string, unknown> = { prompt: request.prompt, num_images: request.n };
  if (request.size !== undefined) {
    const [width, height] = request.size.split('x').map(Number);
    input.image_size = { width, height };
  }
  if (request.aspectRatio !== undefined) input.aspect_ratio = request.aspectRatio;
  if (request.resolution !== undefined) input.resolution = request.resolution;
  if (request.operation === 'edit') {
    input.image_urls = request.images.map((image) => `data:${image.contentType};base64,${image.bytes.toString('base64')}`);
  }
  return input;
}
