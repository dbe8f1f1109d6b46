import { unsupportedParameter } from '../../errors/gateway-error.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { sizeFromResolution } from '../shared/video-dimensions.js';
import type { VideoJobRequest, VideoJobState } from '../video-adapter.js';
import type { OpenAiCreateVideoBody, OpenAiVideoJob } from './videos-wire-types.js';

/**
 * The gateway's video request as OpenAI's `POST /videos` JSON body. OpenAI names the frame by
 * `size` only, so `resolution` + `aspect_ratio` become the matching size; a pair without one,
 * or either alone, cannot be said and is refused rather than dropped.
 */
export function convertToOpenAiVideoBody(request: VideoJobRequest, providerModel: string): OpenAiCreateVideoBody {
  const body: OpenAiCreateVideoBody = { model: providerModel, prompt: request.prompt, seconds: String(request.seconds) };
  if (request.size !== undefined) body.size = request.size;
  if (request.resolution !== undefined || request.aspectRatio !== undefined) {
    const size = request.resolution !== undefined && request.aspectRatio !== undefined ? sizeFromResolution(request.resolution, request.aspectRatio) : undefined;
    if (size === undefined || (body.size !== undefined && body.size !== size)) {
      throw unsupportedParameter(request.resolution !== undefined ? 'resolution' : 'aspect_ratio', 'cannot be expressed for this provider (give size instead)');
    }
    body.size = size;
  }
  if (request.imageUrl !== undefined) body.input_reference = { image_url: request.imageUrl };
  return body;
}

/** A video job object → where the job stands. Unknown statuses count as still running. */
export function readOpenAiVideoJob(providerId: string, job: OpenAiVideoJob): VideoJobState {
  const progress = typeof job.progress === 'number' ? job.progress : undefined;
  switch (job.status) {
    case 'completed':
      return { state: 'completed', seconds: readSeconds(job.seconds), result: {} };
    case 'failed': {
      const message = typeof job.error?.message === 'string' && job.error.message ? job.error.message : 'the provider reported the video as failed';
      const code = typeof job.error?.code === 'string' ? `${job.error.code}: ` : '';
      return { state: 'failed', error: `${code}${message}` };
    }
    case 'in_progress':
      return { state: 'in_progress', progress };
    case 'queued':
      return { state: 'queued', progress };
    default:
      if (typeof job.status !== 'string') throw createProtocolError(providerId, 'sent a video job without a status', JSON.stringify(job));
      return { state: 'in_progress', progress };
  }
}

export function readOpenAiJobId(providerId: string, job: OpenAiVideoJob): string {
  if (typeof job.id === 'string' && job.id !== '') return job.id;
  throw createProtocolError(providerId, 'sent a video job without an id', JSON.stringify(job));
}

function readSeconds(value: unknown): number | undefined {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
