import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildPng, colourOf } from './build-png.js';
import type { FalJob, FalJobStore } from './fal-jobs.js';
import type { MediaRoute } from './match-media-route.js';
import { FAL_PREFIX } from './match-media-route.js';
import { MediaDirectiveError, parseMediaDirectives } from './media-directives.js';
import { sendBytes, sendMediaJson } from './media-response.js';
import { isImage } from './simulate-images.js';

/**
 * fal.ai's queue API: submit answers `{request_id, status_url, response_url, cancel_url}`; the
 * status answers 202 while IN_QUEUE / IN_PROGRESS and 200 once COMPLETED (with `error` when the
 * job failed); the result answers `{images: [{url, content_type, width, height}], …}`, whose URLs
 * point at this simulator's `/fal/files/`. Auth, when the simulator has a key: `Authorization: Key …`.
 * https://docs.fal.ai/documentation/model-apis/inference/queue
 */
export function handleFalRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: Extract<MediaRoute, { kind: `fal-${string}` }>,
  body: Buffer,
  state: { jobs: FalJobStore; apiKey?: string },
): void {
  const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
  if (route.kind === 'fal-file') return serveFile(response, route.name, state.jobs);
  if (state.apiKey !== undefined && request.headers.authorization !== `Key ${state.apiKey}`) {
    return sendMediaJson(response, 401, { detail: 'Invalid API key.' });
  }
  if (route.kind === 'fal-submit') return submit(response, route.modelId, body, origin, state.jobs);
  const job = state.jobs.get(route.requestId);
  if (!job) return sendMediaJson(response, 404, { detail: 'Request not found.' });
  const status = state.jobs.statusOf(job);
  const urls = jobUrls(job, origin);
  if (route.kind === 'fal-status') {
    state.jobs.count('statusPolls');
    const answer: Record<string, unknown> = { status, request_id: job.id, response_url: urls.response_url, status_url: urls.status_url };
    if (status === 'IN_QUEUE') answer.queue_position = 0;
    if (status === 'COMPLETED' && job.fail) answer.error = 'Simulated failure';
    return sendMediaJson(response, status === 'COMPLETED' ? 200 : 202, answer);
  }
  state.jobs.count('resultFetches');
  if (status !== 'COMPLETED') return sendMediaJson(response, 400, { detail: 'Request is still in progress.' });
  if (job.fail) return sendMediaJson(response, 422, { detail: [{ msg: 'Simulated failure', type: 'simulated' }] });
  const images = Array.from({ length: job.count }, (_, index) => ({
    url: `${origin}${FAL_PREFIX}files/${job.id}-${index}.png`,
    content_type: 'image/png',
    width: job.width,
    height: job.height,
  }));
  return sendMediaJson(response, 200, { images, seed: 42, prompt: job.prompt, has_nsfw_concepts: images.map(() => false), timings: { inference: job.durationMs / 1000 } });
}

function submit(response: ServerResponse, modelId: string, body: Buffer, origin: string, jobs: FalJobStore): void {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return sendMediaJson(response, 422, { detail: 'The body is not JSON.' });
  }
  const { prompt, num_images: count = 1, image_size: size, image_urls: imageUrls } = input;
  if (typeof prompt !== 'string' || !prompt) return sendMediaJson(response, 422, { detail: [{ loc: ['body', 'prompt'], msg: 'field required' }] });
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 8) return sendMediaJson(response, 422, { detail: [{ loc: ['body', 'num_images'], msg: 'must be 1 to 8' }] });
  if (imageUrls !== undefined && (!Array.isArray(imageUrls) || !imageUrls.every(isImageDataUri))) {
    return sendMediaJson(response, 422, { detail: [{ loc: ['body', 'image_urls'], msg: 'each must be an image (the simulator takes data URIs)' }] });
  }
  let directives;
  try {
    directives = parseMediaDirectives(prompt);
  } catch (error) {
    if (!(error instanceof MediaDirectiveError)) throw error;
    return sendMediaJson(response, 422, { detail: `simulator directive: ${error.message}` });
  }
  if (directives.status !== undefined) return sendMediaJson(response, directives.status, { detail: 'Simulated error.' });
  const { width = 1024, height = 1024 } = (typeof size === 'object' && size !== null ? size : {}) as { width?: number; height?: number };
  const job = jobs.create({ modelId, prompt, count: count as number, width: Math.min(width, 2048), height: Math.min(height, 2048), durationMs: directives.jobMs, fail: directives.fail === true });
  sendMediaJson(response, 200, { request_id: job.id, ...jobUrls(job, origin) });
}

function serveFile(response: ServerResponse, name: string, jobs: FalJobStore): void {
  const match = /^(.+)-(\d+)\.png$/.exec(name);
  const job = match ? jobs.get(match[1]) : undefined;
  if (!job || Number(match![2]) >= job.count || jobs.statusOf(job) !== 'COMPLETED') return sendMediaJson(response, 404, { detail: 'Not found.' });
  jobs.count('fileDownloads');
  sendBytes(response, 'image/png', buildPng(job.width, job.height, colourOf(job.prompt)));
}

/** fal's status and result URLs name the app (the model id's first two segments), not the whole model id. */
function jobUrls(job: FalJob, origin: string): { status_url: string; response_url: string; cancel_url: string } {
  const app = job.modelId.split('/').slice(0, 2).join('/');
  const base = `${origin}${FAL_PREFIX}${app}/requests/${job.id}`;
  return { status_url: `${base}/status`, response_url: base, cancel_url: `${base}/cancel` };
}

function isImageDataUri(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = /^data:image\/[a-z+.-]+;base64,([A-Za-z0-9+/=]+)$/.exec(value);
  return match !== null && isImage(Buffer.from(match[1], 'base64'));
}
