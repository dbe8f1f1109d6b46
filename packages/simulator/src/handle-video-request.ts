import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { FaultSyntaxError, type FaultStore } from './faults.js';
import { geminiProtocol } from './gemini-protocol.js';
import type { VideoRoute } from './match-video-route.js';
import { openaiProtocol } from './openai-protocol.js';
import type { EncodedError } from './protocol-adapter.js';
import { readBody } from './read-body.js';
import type { FaultSpec } from './simulator-types.js';
import type { StatsRecorder } from './stats.js';
import { trackRequest, type RequestScope } from './track-request.js';
import { buildVideoBytes } from './video-content.js';
import { parseVideoDirectives, type VideoDirectives } from './video-directives.js';
import type { VideoJob, VideoJobStore } from './video-jobs.js';

export interface VideoSimulatorState {
  jobs: VideoJobStore;
  apiKey?: string;
  /** Delay before answering a status poll, so that overlapping polls of one job can be seen. */
  pollLatencyMs: number;
  faults: FaultStore;
  stats: StatsRecorder;
  nextSequence(): number;
  isShuttingDown(): boolean;
}

/**
 * Answers one video request of either protocol. Fault rules (`setFault`, matched by protocol and
 * model) apply to every video request: `status` (with `retry_after`) and `latency`, so that tests
 * can take the provider down while the gateway polls. Prompt directives shape the job itself.
 */
export async function handleVideoRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: VideoRoute,
  query: URLSearchParams,
  state: VideoSimulatorState,
): Promise<void> {
  const adapter = route.protocol === 'openai' ? openaiProtocol : geminiProtocol;
  const scope = trackRequest(response, state.stats, state.isShuttingDown);
  const sequence = state.nextSequence();
  const text = request.method === 'POST' ? await readBody(request) : (request.resume(), '');
  if (text === undefined || scope.closed) return;
  const sendError = (error: EncodedError, headers: OutgoingHttpHeaders = {}) => send(response, error.status, error.body, headers);

  if (route.protocol === 'gemini' && route.action === 'storage') return serveStorage(response, route.fileId, request, state);
  if (state.apiKey !== undefined && !adapter.isAuthorized(request.headers, query, state.apiKey)) return sendError(adapter.encodeAuthError({ sequence }));

  if (route.action === 'create') {
    state.jobs.recordSubmission();
    const decoded = route.protocol === 'openai' ? decodeOpenAiSubmission(text, request.headers['content-type']) : decodeVeoSubmission(text, route.model);
    state.stats.recordRequest(route.protocol, typeof decoded === 'string' ? (route.protocol === 'gemini' ? route.model : '') : decoded.model);
    if (typeof decoded === 'string') return sendError(adapter.encodeError(400, { sequence, message: decoded }));
    let directives: VideoDirectives;
    try {
      directives = parseVideoDirectives(decoded.prompt);
    } catch (error) {
      if (!(error instanceof FaultSyntaxError)) throw error;
      return sendError(adapter.encodeError(400, { sequence, message: `simulator directive: ${error.message}` }));
    }
    const rule = state.faults.take(route.protocol, decoded.model);
    if (!(await scope.sleep(rule?.latency ?? 0))) return;
    const status = directives.status ?? rule?.status;
    if (status !== undefined) return sendFault(sendError, adapter, sequence, status, directives.retry_after ?? rule?.retry_after, state);
    const job = state.jobs.create({ protocol: route.protocol, model: decoded.model, prompt: decoded.prompt, seconds: decoded.seconds, size: decoded.size, directives });
    return send(response, 200, route.protocol === 'openai' ? openAiJob(job, state.jobs) : { name: job.id });
  }

  const job = findJob(route, state.jobs);
  state.stats.recordRequest(route.protocol, job?.model ?? '');
  if (!job) return sendError(adapter.encodeError(404, { sequence, message: 'No such video job.' }));
  const rule = state.faults.take(route.protocol, job.model);
  if (route.action === 'retrieve' || route.action === 'operation') return answerPoll(response, scope, job, rule, route, request, state, sendError, sequence);

  if (!(await scope.sleep(rule?.latency ?? 0))) return;
  if (rule?.status !== undefined) return sendFault(sendError, adapter, sequence, rule.status, rule.retry_after, state);
  if (state.jobs.stateOf(job).status !== 'completed') return sendError(adapter.encodeError(404, { sequence, message: 'The video is not ready.' }));
  if (route.action === 'download') {
    // Google answers the download with a redirect to its storage host; the key must not follow it.
    response.writeHead(302, { location: `/gemini/storage/${job.fileId}`, 'content-length': 0 });
    response.end();
    return;
  }
  state.jobs.recordDownload(job);
  sendVideo(response, job);
}

async function answerPoll(
  response: ServerResponse,
  scope: RequestScope,
  job: VideoJob,
  rule: FaultSpec | undefined,
  route: VideoRoute,
  request: IncomingMessage,
  state: VideoSimulatorState,
  sendError: (error: EncodedError, headers?: OutgoingHttpHeaders) => void,
  sequence: number,
): Promise<void> {
  const finish = state.jobs.startPoll(job);
  try {
    if (!(await scope.sleep(rule?.latency ?? state.pollLatencyMs))) return;
    const adapter = route.protocol === 'openai' ? openaiProtocol : geminiProtocol;
    if (rule?.status !== undefined) return sendFault(sendError, adapter, sequence, rule.status, rule.retry_after, state);
    if (route.protocol === 'openai') return send(response, 200, openAiJob(job, state.jobs));
    return send(response, 200, veoOperation(job, state.jobs, `http://${request.headers.host ?? '127.0.0.1'}`));
  } finally {
    finish();
  }
}

function findJob(route: VideoRoute, jobs: VideoJobStore): VideoJob | undefined {
  if (route.protocol === 'openai') return route.action === 'create' ? undefined : jobs.get(route.jobId);
  if (route.action === 'operation') return jobs.get(route.name);
  return route.action === 'create' ? undefined : jobs.byFileId(route.fileId);
}

function sendFault(
  sendError: (error: EncodedError, headers?: OutgoingHttpHeaders) => void,
  adapter: typeof openaiProtocol,
  sequence: number,
  status: number,
  retryAfterSeconds: number | undefined,
  state: VideoSimulatorState,
): void {
  state.stats.recordFault();
  sendError(adapter.encodeError(status, { sequence, retryAfterSeconds }), retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
}

function serveStorage(response: ServerResponse, fileId: string, request: IncomingMessage, state: VideoSimulatorState): void {
  const job = state.jobs.byFileId(fileId);
  if (request.headers['x-goog-api-key'] !== undefined) state.jobs.recordKeyOnStorage();
  if (!job || state.jobs.stateOf(job).status !== 'completed') return send(response, 404, { error: { code: 404, message: 'No such file.', status: 'NOT_FOUND' } });
  state.jobs.recordDownload(job);
  sendVideo(response, job);
}

function sendVideo(response: ServerResponse, job: VideoJob): void {
  const bytes = buildVideoBytes(job.id);
  response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
  response.end(bytes);
}

/** OpenAI's video job object. https://platform.openai.com/docs/api-reference/videos/object */
function openAiJob(job: VideoJob, jobs: VideoJobStore): Record<string, unknown> {
  const { status, progress } = jobs.stateOf(job);
  return {
    id: job.id,
    object: 'video',
    model: job.model,
    status,
    progress,
    created_at: Math.floor(job.createdAt / 1000),
    completed_at: status === 'completed' ? Math.floor((job.createdAt + job.durationMs) / 1000) : null,
    expires_at: null,
    prompt: job.prompt,
    seconds: String(job.seconds),
    size: job.size ?? '720x1280',
    remixed_from_video_id: null,
    error: status === 'failed' ? { code: 'video_generation_failed', message: 'Simulated video generation failure.' } : null,
  };
}

/** A google.longrunning.Operation for Veo. https://ai.google.dev/gemini-api/docs/video */
function veoOperation(job: VideoJob, jobs: VideoJobStore, origin: string): Record<string, unknown> {
  const { status, progress } = jobs.stateOf(job);
  const operation: Record<string, unknown> = {
    name: job.id,
    metadata: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningMetadata', progressPercent: progress },
    done: status === 'completed' || status === 'failed',
  };
  if (status === 'failed') operation.error = { code: 13, message: 'Simulated video generation failure.', status: 'INTERNAL' };
  if (status === 'completed') {
    operation.response = {
      '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
      generateVideoResponse: { generatedSamples: [{ video: { uri: `${origin}/gemini/v1beta/files/${job.fileId}:download?alt=media` } }] },
    };
  }
  return operation;
}

interface Submission {
  model: string;
  prompt: string;
  seconds: number;
  size: string | null;
}

/** OpenAI's create body (JSON; or the form its SDK uploads). Strict where the API is: `seconds` is a string. */
function decodeOpenAiSubmission(text: string, contentType: string | undefined): Submission | string {
  if (contentType?.startsWith('multipart/form-data')) return 'The simulator reads the JSON form of POST /videos.';
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'The request body is not valid JSON.';
  }
  if (typeof body !== 'object' || body === null) return 'The request body must be a JSON object.';
  if (typeof body.prompt !== 'string' || body.prompt === '') return "Missing required parameter: 'prompt'.";
  if (body.seconds !== undefined && (typeof body.seconds !== 'string' || !/^\d+$/.test(body.seconds))) return "Invalid type for 'seconds': expected a string of digits.";
  if (body.size !== undefined && (typeof body.size !== 'string' || !/^\d+x\d+$/.test(body.size))) return "Invalid value for 'size'.";
  const known = new Set(['model', 'prompt', 'seconds', 'size', 'input_reference']);
  const unknown = Object.keys(body).find((key) => !known.has(key));
  if (unknown) return `Unrecognized request argument supplied: ${unknown}`;
  return { model: typeof body.model === 'string' ? body.model : 'sora-2', prompt: body.prompt, seconds: Number(body.seconds ?? '4'), size: typeof body.size === 'string' ? body.size : null };
}

/** Veo's `predictLongRunning` body: `{instances: [{prompt, image?}], parameters: {durationSeconds, …}}`. */
function decodeVeoSubmission(text: string, model: string): Submission | string {
  let body: { instances?: Array<{ prompt?: unknown }>; parameters?: { durationSeconds?: unknown; resolution?: unknown; aspectRatio?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return 'Invalid JSON payload received.';
  }
  const prompt = body?.instances?.[0]?.prompt;
  if (typeof prompt !== 'string' || prompt === '') return 'instances[0].prompt is required.';
  const seconds = body.parameters?.durationSeconds;
  if (seconds !== undefined && typeof seconds !== 'number') return 'parameters.durationSeconds must be a number.';
  const resolution = typeof body.parameters?.resolution === 'string' ? body.parameters.resolution : null;
  const aspect = typeof body.parameters?.aspectRatio === 'string' ? body.parameters.aspectRatio : null;
  return { model, prompt, seconds: seconds ?? 8, size: resolution && aspect ? `${resolution}@${aspect}` : null };
}

function send(response: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
