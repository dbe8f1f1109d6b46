import { unsupportedParameter } from '../../errors/gateway-error.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { resolutionFromSize } from '../shared/video-dimensions.js';
import type { VideoJobRequest, VideoJobState } from '../video-adapter.js';
import type { VeoOperation, VeoPredictBody } from './veo-wire-types.js';

/**
 * The gateway's video request as a Veo `predictLongRunning` body. Veo names the frame by
 * `resolution` + `aspectRatio`, so an OpenAI-style `size` becomes that pair when it is a known
 * one. The Gemini API takes the first frame inline only (it fetches no URLs), so `image_url`
 * must be a data: URL here.
 */
export function convertToVeoBody(request: VideoJobRequest): VeoPredictBody {
  const parameters: VeoPredictBody['parameters'] = { durationSeconds: request.seconds };
  if (request.size !== undefined) {
    const frame = resolutionFromSize(request.size);
    const conflicts = frame && ((request.resolution ?? frame.resolution) !== frame.resolution || (request.aspectRatio ?? frame.aspectRatio) !== frame.aspectRatio);
    if (!frame || conflicts) throw unsupportedParameter('size', 'cannot be expressed for this provider (give resolution and aspect_ratio instead)');
    parameters.resolution = frame.resolution;
    parameters.aspectRatio = frame.aspectRatio;
  }
  if (request.resolution !== undefined) parameters.resolution = request.resolution;
  if (request.aspectRatio !== undefined) parameters.aspectRatio = request.aspectRatio;
  const instance: VeoPredictBody['instances'][number] = { prompt: request.prompt };
  if (request.imageUrl !== undefined) instance.image = readDataUrl(request.imageUrl);
  return { instances: [instance], parameters };
}

function readDataUrl(url: string): { bytesBase64Encoded: string; mimeType: string } {
  const match = /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(url);
  if (!match) throw unsupportedParameter('image_url', 'must be a data:<media type>;base64,… URL for this provider');
  return { mimeType: match[1], bytesBase64Encoded: match[2].replace(/\s+/g, '') };
}

/** The operation name goes into a URL path: only the characters Google's names use, no `..`. */
export function readOperationName(providerId: string, operation: VeoOperation): string {
  const name = operation.name;
  if (typeof name === 'string' && /^[A-Za-z0-9._\-/]+$/.test(name) && !name.split('/').includes('..')) return name;
  throw createProtocolError(providerId, 'sent an operation without a usable name', JSON.stringify(operation));
}

/** An operation → where the job stands: not done, done with an error, or done with its video. */
export function readVeoOperation(providerId: string, operation: VeoOperation): VideoJobState {
  const percent = operation.metadata?.progressPercent;
  const progress = typeof percent === 'number' ? percent : undefined;
  if (operation.done !== true) return { state: progress && progress > 0 ? 'in_progress' : 'queued', progress };
  if (operation.error) {
    const status = typeof operation.error.status === 'string' ? `${operation.error.status}: ` : '';
    const message = typeof operation.error.message === 'string' ? operation.error.message : 'the provider reported the video as failed';
    return { state: 'failed', error: `${status}${message}` };
  }
  const generated = operation.response?.generateVideoResponse;
  const uri = generated?.generatedSamples?.find((sample) => typeof sample?.video?.uri === 'string')?.video?.uri;
  if (typeof uri === 'string') return { state: 'completed', result: { uri } };
  const reasons = Array.isArray(generated?.raiMediaFilteredReasons) ? generated.raiMediaFilteredReasons.filter((reason) => typeof reason === 'string') : [];
  if (reasons.length > 0 || typeof generated?.raiMediaFilteredCount === 'number') {
    return { state: 'failed', error: `The provider filtered the video: ${reasons.join('; ') || 'safety filters'}` };
  }
  throw createProtocolError(providerId, 'finished an operation without a video or an error', JSON.stringify(operation));
}
