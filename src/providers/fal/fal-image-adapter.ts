import type { ImageJobHandle, ImageJobState } from '../../core/image-request.js';
import type { ImageAdapter } from '../media-adapter.js';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from '../shared/create-protocol-error.js';
import { extractErrorMessage, readJsonObject } from '../shared/send-request.js';
import { sendUpstream } from '../shared/send-upstream.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { convertToFalInput } from './convert-request.js';
import type { FalImagesResult, FalStatusResponse, FalSubmitResponse } from './fal-wire-types.js';
import { authHeaders } from '../shared/auth-headers.js';

/**
 * fal.ai's queue API: submit (POST {base}/{model_id}) answers a request id with its status and
 * response URLs; the status goes IN_QUEUE → IN_PROGRESS → COMPLETED; the response URL then gives
 * the output. The base URL is `https://queue.fal.run`; auth is `Authorization: Key …`.
 * The key goes only to URLs on the base URL's origin: status and response URLs from elsewhere
 * are refused rather than followed.
 * https://docs.fal.ai/documentation/model-apis/inference/queue
 */
export const falImageAdapter: ImageAdapter = {
  api: 'fal',
  incapability(request) {
    if (request.quality !== undefined) return { field: 'quality', reason: 'is not supported by fal image models' };
    return undefined;
  },
  async start(request, context) {
    const url = `${context.provider.baseUrl}/${context.providerModel}`;
    const response = await sendUpstream(context, url, { method: 'POST', headers: await authorization(context), json: convertToFalInput(request) });
    const submitted = await readJsonObject<FalSubmitResponse>(context.provider.id, response);
    const job = readJobHandle(submitted, context);
    return { state: 'pending', job, progress: 0 };
  },
  async poll(job, context) {
    const response = await sendUpstream(context, onProviderOrigin(job.statusUrl, context), { method: 'GET', headers: await authorization(context) });
    const status = await readJsonObject<FalStatusResponse>(context.provider.id, response);
    switch (status.status) {
      case 'IN_QUEUE':
        return { state: 'pending', job, progress: 0 };
      case 'IN_PROGRESS':
        return { state: 'pending', job, progress: 50 };
      case 'COMPLETED':
        if (status.error) return { state: 'failed', error: `${context.provider.id}: ${status.error}` };
        return readResult(job, context);
      case 'FAILED':
      case 'CANCELED':
        return { state: 'failed', error: `${context.provider.id}: request ${status.status.toLowerCase()}${status.error ? `: ${status.error}` : ''}` };
      default:
        throw createProtocolError(context.provider.id, `sent an unknown queue status '${String(status.status)}'`);
    }
  },
};

async function readResult(job: ImageJobHandle, context: CallContext): Promise<ImageJobState> {
  let result: FalImagesResult;
  try {
    const response = await sendUpstream(context, onProviderOrigin(job.responseUrl, context), { method: 'GET', headers: await authorization(context) });
    result = await readJsonObject<FalImagesResult>(context.provider.id, response);
  } catch (error) {
    // A run that failed (bad input, a safety check) answers its result with a 4xx: final.
    if (error instanceof UpstreamError && error.status >= 400 && error.status < 500 && error.status !== 429) {
      return { state: 'failed', error: `${context.provider.id}: ${extractErrorMessage(error.body)}` };
    }
    throw error;
  }
  const images = (result.images ?? []).filter((image) => typeof image?.url === 'string' && image.url).map((image) => ({ url: image.url! }));
  if (images.length === 0) return { state: 'failed', error: `${context.provider.id}: the job finished without images` };
  return { state: 'completed', images };
}

function readJobHandle(submitted: FalSubmitResponse, context: CallContext): ImageJobHandle {
  const { request_id: id, status_url: statusUrl, response_url: responseUrl } = submitted;
  if (typeof id !== 'string' || !id || typeof statusUrl !== 'string' || typeof responseUrl !== 'string') {
    throw createProtocolError(context.provider.id, 'answered the submission without request_id, status_url and response_url', JSON.stringify(submitted).slice(0, 500));
  }
  return { id, statusUrl: onProviderOrigin(statusUrl, context), responseUrl: onProviderOrigin(responseUrl, context) };
}

function onProviderOrigin(url: string, context: CallContext): string {
  let origin: string | undefined;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = undefined;
  }
  if (origin !== new URL(context.provider.baseUrl).origin) {
    throw new UpstreamError({ provider: context.provider.id, status: 502, retryable: false, message: `${context.provider.id} sent a job URL outside its base URL` });
  }
  return url;
}

async function authorization(context: CallContext): Promise<Record<string, string>> {
  return authHeaders(context.provider.auth);
}
