import type { ModelConfig } from '../config/types.js';
import { invalidRequest, unsupportedParameter } from '../errors/gateway-error.js';
import type { VideoRequest, VideoRequestBody } from './video-request.js';

/** Upper bound for models that list no durations. */
const maxUnlistedSeconds = 120;

/**
 * Checks a schema-valid body against what the model lists in the catalog (what
 * `GET /videos/models` shows): a value outside the list is a 400 naming the field, and a field
 * the model lists nothing for is unsupported, never dropped. `seconds` defaults to the model's
 * first listed duration.
 */
export function checkVideoRequest(body: VideoRequestBody, model: ModelConfig): VideoRequest {
  const seconds = readSeconds(body.seconds, model);
  const request: VideoRequest = { model: model.id, prompt: body.prompt, seconds };
  if (body.size !== undefined) request.size = checkListed('size', body.size, model.sizes, model);
  if (body.resolution !== undefined) request.resolution = checkListed('resolution', body.resolution, model.resolutions, model);
  if (body.aspect_ratio !== undefined) request.aspectRatio = checkListed('aspect_ratio', body.aspect_ratio, model.aspectRatios, model);
  if (body.image_url !== undefined) {
    if (!model.inputModalities.includes('image')) throw unsupportedParameter('image_url', `is not supported by model '${model.id}' (it takes no image input)`);
    if (!/^(https?:\/\/|data:image\/)/i.test(body.image_url)) throw invalidRequest("'image_url' must be an http(s) URL or a data:image/… URL", 'image_url');
    request.imageUrl = body.image_url;
  }
  if (body.prompt.trim() === '') throw invalidRequest("'prompt' must not be empty", 'prompt');
  return request;
}

function readSeconds(value: number | string | undefined, model: ModelConfig): number {
  if (value === undefined) {
    if (model.durations.length > 0) return model.durations[0];
    throw invalidRequest("'seconds' is required", 'seconds');
  }
  const seconds = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw invalidRequest("'seconds' must be a positive number or numeric string", 'seconds');
  if (model.durations.length > 0) {
    if (!model.durations.includes(seconds)) {
      throw invalidRequest(`'seconds' must be one of ${model.durations.join(', ')} for model '${model.id}', got ${String(value)}`, 'seconds');
    }
  } else if (!Number.isInteger(seconds) || seconds > maxUnlistedSeconds) {
    throw invalidRequest(`'seconds' must be a whole number from 1 to ${maxUnlistedSeconds}`, 'seconds');
  }
  return seconds;
}

function checkListed(field: string, value: string, listed: string[], model: ModelConfig): string {
  if (listed.length === 0) throw unsupportedParameter(field, `is not supported by model '${model.id}'`);
  if (!listed.includes(value)) throw invalidRequest(`'${field}' must be one of ${listed.join(', ')} for model '${model.id}', got '${value}'`, field);
  return value;
}
