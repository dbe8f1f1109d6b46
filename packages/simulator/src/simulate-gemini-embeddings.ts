import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { countWords } from './count-tokens.js';
import { decodePathSegment } from './decode-path-segment.js';
import type { MediaSimulatorState } from './handle-media-request.js';
import { geminiProtocol } from './gemini-protocol.js';
import { MediaDirectiveError, parseMediaDirectives } from './media-directives.js';
import { sendMediaJson } from './media-response.js';
import type { ProtocolAdapter } from './protocol-adapter.js';
import { readRawBody } from './read-body.js';
import type { ReceivedRequest } from './simulator-types.js';
import { trackRequest } from './track-request.js';
import { vertexGeminiProtocol } from './vertex-protocols.js';

/**
 * Google's text embeddings, written from Google's references:
 * - Gemini API (https://ai.google.dev/api/embeddings): `POST /gemini/v1beta/models/{model}:embedContent`
 *   `{content: {parts: [{text}]}, taskType?, title?, outputDimensionality?}` → `{embedding: {values}}`,
 *   and `:batchEmbedContents` `{requests: [{model: "models/{model}", content, …}]}` (at most 100)
 *   → `{embeddings: [{values}]}`. Neither reports tokens, as Gemini's API does not for
 *   gemini-embedding-001.
 * - Vertex AI (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api):
 *   `POST /vertex/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:predict`
 *   `{instances: [{content, task_type?, title?}], parameters?: {outputDimensionality?, autoTruncate?}}`
 *   → `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}], metadata:
 *   {billableCharacterCount}}`; at most 250 instances, and one for gemini-embedding-001.
 *
 * The vectors are deterministic: a unit vector of the model's full size drawn from a hash of the
 * model, task type and text, cut to `outputDimensionality` (Matryoshka-style, as Google's are:
 * only the full size is normalized). Tokens are the simulator's words (`count-tokens.ts`).
 * Keys, fault rules and `[[sim:status=N]]` directives work as on the other Gemini routes.
 */
export type GeminiEmbeddingRoute =
  | { kind: 'embed-content'; model: string }
  | { kind: 'batch-embed-contents'; model: string }
  | { kind: 'vertex-predict'; model: string };

const GEMINI_MODELS = '/gemini/v1beta/models/';
const VERTEX_PREDICT = /^\/vertex\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/:]+):predict$/;

export function matchGeminiEmbeddingRoute(method: string, pathname: string): GeminiEmbeddingRoute | undefined {
  if (method !== 'POST') return undefined;
  const vertex = VERTEX_PREDICT.exec(pathname);
  if (vertex) return { kind: 'vertex-predict', model: decodePathSegment(vertex[1]!) };
  if (!pathname.startsWith(GEMINI_MODELS)) return undefined;
  const target = pathname.slice(GEMINI_MODELS.length);
  const separator = target.lastIndexOf(':');
  const action = target.slice(separator + 1);
  if (separator <= 0 || (action !== 'embedContent' && action !== 'batchEmbedContents')) return undefined;
  const model = decodePathSegment(target.slice(0, separator));
  return { kind: action === 'embedContent' ? 'embed-content' : 'batch-embed-contents', model };
}

const TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY',
]);
const BATCH_LIMIT = 100;
const VERTEX_INSTANCE_LIMIT = 250;

/** The full vector size: 3072 for the Gemini embedding models, 768 for text-embedding-00x and the rest. */
export function fullDimensions(model: string): number {
  return /^gemini-embedding/.test(model) ? 3072 : 768;
}

class EmbeddingRequestError extends Error {}

export async function handleGeminiEmbeddingRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: GeminiEmbeddingRoute,
  query: URLSearchParams,
  state: MediaSimulatorState & { recordReceived?(entry: ReceivedRequest): void },
): Promise<void> {
  const scope = trackRequest(response, state.stats, state.isShuttingDown);
  const raw = await readRawBody(request);
  if (raw === undefined || scope.closed) return;
  const adapter: ProtocolAdapter = route.kind === 'vertex-predict' ? vertexGeminiProtocol : geminiProtocol;
  const sequence = state.nextSequence();
  const body = parseObject(raw);
  state.recordReceived?.({ protocol: 'gemini', method: 'POST', path: request.url ?? '', headers: request.headers, rawBody: raw.toString('utf8'), body });
  state.stats.recordRequest('gemini', route.model);
  const fail = (status: number, message?: string, headers: Record<string, string> = {}) => {
    const error = adapter.encodeError(status, { sequence, message });
    sendMediaJson(response, error.status, error.body, headers);
  };
  if (state.apiKey !== undefined && !adapter.isAuthorized(request.headers, query, state.apiKey)) {
    const error = adapter.encodeAuthError({ sequence });
    return sendMediaJson(response, error.status, error.body);
  }
  if (body === undefined) return fail(400, 'Invalid JSON payload received.');
  let texts: string[];
  try {
    texts = textsOf(route, body);
    const directive = parseMediaDirectives(texts.join(' ')).status;
    const rule = state.faults.take('gemini', route.model);
    if (rule) state.stats.recordFault();
    if (!(await scope.sleep(rule?.latency ?? 0))) return;
    const status = directive ?? rule?.status;
    if (status !== undefined) return fail(status, undefined, rule?.retry_after !== undefined ? { 'retry-after': String(rule.retry_after) } : {});
    sendMediaJson(response, 200, answer(route, body, texts));
  } catch (error) {
    if (error instanceof MediaDirectiveError) return fail(400, `simulator directive: ${error.message}`);
    if (error instanceof EmbeddingRequestError) return fail(400, error.message);
    throw error;
  }
}

/** The texts to embed, in order, after checking the request as Google does. */
function textsOf(route: GeminiEmbeddingRoute, body: Record<string, unknown>): string[] {
  if (route.kind === 'embed-content') return [checkedText(body, 'EmbedContentRequest')];
  if (route.kind === 'batch-embed-contents') {
    const requests = Array.isArray(body.requests) ? body.requests : [];
    if (requests.length === 0) throw new EmbeddingRequestError('* BatchEmbedContentsRequest.requests: requests is not specified');
    if (requests.length > BATCH_LIMIT) throw new EmbeddingRequestError(`* BatchEmbedContentsRequest.requests: at most ${BATCH_LIMIT} requests can be in one batch\n`);
    return requests.map((entry, index) => {
      const one = asObject(entry);
      const where = `BatchEmbedContentsRequest.requests[${index}]`;
      if (one.model !== `models/${route.model}`) throw new EmbeddingRequestError(`* ${where}.model: must be models/${route.model}, the model of the URL (got ${JSON.stringify(one.model)})`);
      return checkedText(one, where);
    });
  }
  const instances = Array.isArray(body.instances) ? body.instances : [];
  if (instances.length === 0) throw new EmbeddingRequestError('instances must not be empty');
  const limit = /^gemini-embedding/.test(route.model) ? 1 : VERTEX_INSTANCE_LIMIT;
  if (instances.length > limit) throw new EmbeddingRequestError(`${route.model} takes at most ${limit} instance${limit === 1 ? '' : 's'} per request, got ${instances.length}`);
  const dimensions = asObject(body.parameters).outputDimensionality;
  checkDimensions(route.model, dimensions, 'parameters.outputDimensionality');
  return instances.map((entry, index) => {
    const instance = asObject(entry);
    if (typeof instance.content !== 'string' || instance.content === '') throw new EmbeddingRequestError(`instances[${index}].content must be a non-empty string`);
    checkTaskType(instance.task_type, `instances[${index}].task_type`);
    return instance.content;
  });
}

function checkedText(request: Record<string, unknown>, where: string): string {
  const parts = Array.isArray(asObject(request.content).parts) ? (asObject(request.content).parts as unknown[]) : [];
  const texts = parts.map((part) => asObject(part).text).filter((text): text is string => typeof text === 'string');
  if (texts.length === 0) throw new EmbeddingRequestError(`* ${where}.content: content is not specified`);
  checkTaskType(request.taskType, `${where}.task_type`);
  return texts.join(' ');
}

function checkTaskType(taskType: unknown, where: string): void {
  if (taskType !== undefined && (typeof taskType !== 'string' || !TASK_TYPES.has(taskType))) throw new EmbeddingRequestError(`* ${where}: Invalid value (${JSON.stringify(taskType)})`);
}

function checkDimensions(model: string, value: unknown, where: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > fullDimensions(model)) {
    throw new EmbeddingRequestError(`* ${where}: must be an integer from 1 to ${fullDimensions(model)} for ${model}, got ${JSON.stringify(value)}`);
  }
}

function answer(route: GeminiEmbeddingRoute, body: Record<string, unknown>, texts: string[]): Record<string, unknown> {
  if (route.kind === 'embed-content') {
    checkDimensions(route.model, body.outputDimensionality, 'EmbedContentRequest.output_dimensionality');
    return { embedding: { values: geminiEmbeddingOf(route.model, texts[0]!, body.taskType, body.outputDimensionality) } };
  }
  if (route.kind === 'batch-embed-contents') {
    const requests = (body.requests as unknown[]).map(asObject);
    requests.forEach((one, index) => checkDimensions(route.model, one.outputDimensionality, `BatchEmbedContentsRequest.requests[${index}].output_dimensionality`));
    return { embeddings: requests.map((one, index) => ({ values: geminiEmbeddingOf(route.model, texts[index]!, one.taskType, one.outputDimensionality) })) };
  }
  const dimensions = asObject(body.parameters).outputDimensionality;
  const instances = (body.instances as unknown[]).map(asObject);
  return {
    predictions: instances.map((instance, index) => ({
      embeddings: { values: geminiEmbeddingOf(route.model, texts[index]!, instance.task_type, dimensions), statistics: { token_count: countWords(texts[index]!), truncated: false } },
    })),
    metadata: { billableCharacterCount: texts.reduce((sum, text) => sum + text.replace(/\s/g, '').length, 0) },
  };
}

/** A unit vector of the model's full size from a hash of model, task type and text, cut to `dimensions`. */
export function geminiEmbeddingOf(model: string, text: string, taskType: unknown, dimensions: unknown): number[] {
  const size = fullDimensions(model);
  let seed = createHash('sha256').update(`${model}\n${typeof taskType === 'string' ? taskType : ''}\n${text}`).digest().readUInt32LE(0);
  const values = new Array<number>(size);
  let norm = 0;
  for (let index = 0; index < size; index++) {
    // mulberry32: a small, well-mixed generator, so the same seed gives the same vector everywhere.
    seed = (seed + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), seed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    const value = ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32 - 0.5;
    values[index] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  const wanted = typeof dimensions === 'number' ? dimensions : size;
  return values.slice(0, wanted).map((value) => Number((value * scale).toFixed(8)));
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
