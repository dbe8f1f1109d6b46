import type { ModelConfig } from '../../config/types.js';
import type { ImageOperation } from '../../core/image-request.js';
import { maxImagesOf } from '../../media/plan-images.js';

/** Most inputs one edit takes; providers take fewer (OpenAI 16, fal models up to 10 or so). */
export const maxEditImages = 16;

/**
 * The JSON Schema of an image request body for one model and operation: what `GET /media/models`
 * publishes and what the request is validated with, so the two never disagree. Model-level lists
 * become enums; a field whose list is empty is not offered (and is refused as unsupported).
 */
export function buildImageRequestSchema(model: ModelConfig, operation: ImageOperation): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    model: { type: 'string', const: model.id },
    models: { type: 'array', items: { type: 'string' }, description: 'fallback models, tried in order after model' },
    provider: { type: 'object', description: 'provider routing preferences: order, only, ignore, allow_fallbacks, sort' },
    prompt: { type: 'string', minLength: 1 },
    n: { type: 'integer', minimum: 1, maximum: maxImagesOf(model), default: 1 },
    response_format: { type: 'string', enum: ['b64_json', 'url'], default: 'b64_json' },
  };
  const lists: Array<[string, string[] | undefined]> = [
    ['size', model.sizes],
    ['quality', model.qualities],
    ['aspect_ratio', model.aspectRatios],
    ['resolution', model.resolutions],
  ];
  for (const [name, values] of lists) {
    if (values && values.length > 0) properties[name] = { type: 'string', enum: values };
  }
  const required = ['model', 'prompt'];
  if (operation === 'edit') {
    properties.images = {
      type: 'array',
      minItems: 1,
      maxItems: maxEditImages,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['image_url'],
        properties: { image_url: { type: 'string', minLength: 1, description: 'an https URL or a base64 data URL of a PNG, JPEG, WebP or GIF image' } },
      },
    };
    required.push('images');
  }
  return { type: 'object', additionalProperties: false, required, properties };
}
