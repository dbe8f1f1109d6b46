import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { anthropicProtocol } from './anthropic-protocol.js';
import { geminiProtocol } from './gemini-protocol.js';
import { openaiProtocol } from './openai-protocol.js';
import type { ProtocolAdapter } from './protocol-adapter.js';
import { readRawBody } from './read-body.js';

/**
 * The vendors' batch APIs, each answering its lines as the simulator's live endpoint does (a
 * request to that endpoint on this simulator, under the caller's own auth headers), after
 * `batchDurationMs`:
 * - OpenAI Files + Batch (https://platform.openai.com/docs/api-reference/batch):
 *   `POST /openai/v1/files` (multipart `file`, `purpose`), `GET /openai/v1/files/{id}`,
 *   `GET /openai/v1/files/{id}/content`, `POST /openai/v1/batches`, `GET /openai/v1/batches/{id}`,
 *   `POST /openai/v1/batches/{id}/cancel`; lines for `/v1/chat/completions` and `/v1/embeddings`.
 *   Its lines start at the first read after the batch is due and it completes when the last
 *   answers; a cancel makes it `cancelling` (lines in flight are dropped, the rest never start)
 *   and the next read `cancelled`, the lines answered by then in the output and error files, the
 *   others in the error file as `batch_cancelled` (the reference's `BatchRequestOutput.error`);
 *   one still running at the end of its completion window (`batchCompletionWindowMs`, 24 h by
 *   default) ends `expired` the same way, its unanswered lines `batch_expired`.
 * - Anthropic Message Batches (https://docs.anthropic.com/en/api/creating-message-batches):
 *   `POST /anthropic/v1/messages/batches`, `GET …/{id}`, `GET /anthropic/v1/messages/batches`,
 *   `POST …/{id}/cancel`, `GET …/{id}/results` (JSONL).
 * - Gemini batch mode (https://ai.google.dev/gemini-api/docs/batch-mode), inline requests:
 *   `POST /gemini/v1beta/models/{model}:batchGenerateContent`, the operation polled with
 *   `GET /gemini/v1beta/batches/{id}`, `POST /gemini/v1beta/batches/{id}:cancel`.
 * An Anthropic or Gemini batch ends on the first read after its time is up (its lines are run
 * then), or at a cancel before that (no line run).
 */
export type BatchRoute =
  | { kind: 'openai-file-create' }
  | { kind: 'openai-file'; id: string; content: boolean }
  | { kind: 'openai-batch-create' }
  | { kind: 'openai-batch'; id: string; cancel: boolean }
  | { kind: 'anthropic-create' }
  | { kind: 'anthropic-list' }
  | { kind: 'anthropic-batch'; id: string; action: 'get' | 'cancel' | 'results' }
  | { kind: 'gemini-create'; model: string }
  | { kind: 'gemini-batch'; id: string; cancel: boolean };

export function matchBatchRoute(method: string, pathname: string): BatchRoute | undefined {
  let match: RegExpExecArray | null;
  if (method === 'POST' && pathname === '/openai/v1/files') return { kind: 'openai-file-create' };
  if (method === 'GET' && (match = /^\/openai\/v1\/files\/([^/]+)(\/content)?$/.exec(pathname))) return { kind: 'openai-file', id: match[1]!, content: match[2] !== undefined };
  if (method === 'POST' && pathname === '/openai/v1/batches') return { kind: 'openai-batch-create' };
  if (method === 'GET' && (match = /^\/openai\/v1\/batches\/([^/]+)$/.exec(pathname))) return { kind: 'openai-batch', id: match[1]!, cancel: false };
  if (method === 'POST' && (match = /^\/openai\/v1\/batches\/([^/]+)\/cancel$/.exec(pathname))) return { kind: 'openai-batch', id: match[1]!, cancel: true };
  if (pathname === '/anthropic/v1/messages/batches') return method === 'POST' ? { kind: 'anthropic-create' } : method === 'GET' ? { kind: 'anthropic-list' } : undefined;
  if (method === 'GET' && (match = /^\/anthropic\/v1\/messages\/batches\/([^/]+)$/.exec(pathname))) return { kind: 'anthropic-batch', id: match[1]!, action: 'get' };
  if (method === 'GET' && (match = /^\/anthropic\/v1\/messages\/batches\/([^/]+)\/results$/.exec(pathname))) return { kind: 'anthropic-batch', id: match[1]!, action: 'results' };
  if (method === 'POST' && (match = /^\/anthropic\/v1\/messages\/batches\/([^/]+)\/cancel$/.exec(pathname))) return { kind: 'anthropic-batch', id: match[1]!, action: 'cancel' };
  if (method === 'POST' && (match = /^\/gemini\/v1beta\/models\/(.+):batchGenerateContent$/.exec(pathname))) return { kind: 'gemini-create', model: decodeURIComponent(match[1]!) };
  if (method === 'GET' && (match = /^\/gemini\/v1beta\/batches\/([^/:]+)$/.exec(pathname))) return { kind: 'gemini-batch', id: match[1]!, cancel: false };
  if (method === 'POST' && (match = /^\/gemini\/v1beta\/batches\/([^/:]+):cancel$/.exec(pathname))) return { kind: 'gemini-batch', id: match[1]!, cancel: true };
  return undefined;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: number;
  content: string;
  createdAt: number;
}

/** One request of a batch: its id in the batch, where it goes live, and what came back. */
interface BatchLine {
  key: string;
  path: string;
  body: unknown;
  status?: number;
  answer?: unknown;
}

interface StoredBatch {
  id: string;
  vendor: 'openai' | 'anthropic' | 'gemini';
  lines: BatchLine[];
  /** The caller's auth headers, which the lines carry to the live endpoints. */
  auth: Record<string, string>;
  createdAt: number;
  dueAt: number;
  state: 'running' | 'ended';
  canceled: boolean;
  /** OpenAI's batch: ended by its completion window. */
  expired?: boolean;
  cancelAt?: number;
  endedAt?: number;
  /** OpenAI's batch: its input file, endpoint, output and error files, metadata. */
  openai?: { inputFileId: string; endpoint: string; completionWindow: string; expiresAt: number; metadata: unknown; outputFileId?: string | null; errorFileId?: string | null };
  /** Gemini's batch: its model, display name, input config (as sent: the resource echoes it) and priority. */
  gemini?: { model: string; displayName: string; inputConfig: unknown; priority: string };
  /** A run of the lines under way (a second read waits for it). */
  running?: Promise<void>;
  /** Stops an OpenAI batch's lines in flight at a cancel. */
  abort?: AbortController;
}

export class BatchStore {
  readonly files = new Map<string, StoredFile>();
  readonly batches = new Map<string, StoredBatch>();
  constructor(
    readonly durationMs: number,
    /** OpenAI's completion window (`24h`), shorter in tests. */
    readonly completionWindowMs = 24 * 3600 * 1000,
  ) {}
  reset(): void {
    for (const batch of this.batches.values()) batch.abort?.abort();
    this.files.clear();
    this.batches.clear();
  }
  stats(): { files: number; batches: number } {
    return { files: this.files.size, batches: this.batches.size };
  }
}

export interface BatchState {
  store: BatchStore;
  apiKey?: string;
  /** This simulator's own URL, where the lines are sent. */
  selfUrl(): string;
}

const adapterOf: Record<StoredBatch['vendor'], ProtocolAdapter> = { openai: openaiProtocol, anthropic: anthropicProtocol, gemini: geminiProtocol };
const authHeaders = ['authorization', 'x-api-key', 'x-goog-api-key', 'anthropic-version'];

function send(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

function errorOf(vendor: StoredBatch['vendor'], status: number, message: string): unknown {
  if (vendor === 'anthropic') return { type: 'error', error: { type: status === 404 ? 'not_found_error' : 'invalid_request_error', message } };
  if (vendor === 'gemini') return { error: { code: status, message, status: status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT' } };
  return { error: { message, type: 'invalid_request_error', param: null, code: status === 404 ? 'not_found' : null } };
}

export async function handleBatchRequest(request: IncomingMessage, response: ServerResponse, route: BatchRoute, query: URLSearchParams, state: BatchState): Promise<void> {
  const vendor: StoredBatch['vendor'] = route.kind.startsWith('openai') ? 'openai' : route.kind.startsWith('anthropic') ? 'anthropic' : 'gemini';
  const raw = await readRawBody(request);
  if (raw === undefined) return;
  const adapter = adapterOf[vendor];
  if (state.apiKey !== undefined && !adapter.isAuthorized(request.headers, query, state.apiKey)) {
    const error = adapter.encodeAuthError({ sequence: 0 });
    return send(response, error.status, error.body);
  }
  const fail = (status: number, message: string) => send(response, status, errorOf(vendor, status, message));
  const json = (): Record<string, unknown> | undefined => {
    try {
      const value = JSON.parse(raw.toString('utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const { store } = state;
  const now = Date.now();
  const auth = Object.fromEntries(authHeaders.filter((name) => typeof request.headers[name] === 'string').map((name) => [name, request.headers[name] as string]));
  const ownBatch = async (id: string): Promise<StoredBatch | undefined> => {
    const batch = store.batches.get(id);
    if (!batch || batch.vendor !== vendor) return undefined;
    if (vendor === 'openai') await settleOpenai(batch, state);
    else await settle(batch, state);
    return batch;
  };

  switch (route.kind) {
    case 'openai-file-create': {
      const form = await readForm(raw, request.headers);
      const file = form?.get('file');
      const purpose = form?.get('purpose');
      if (!form || typeof file !== 'object' || file === null || typeof purpose !== 'string') return fail(400, 'Send multipart/form-data with `file` and `purpose`');
      const content = await file.text();
      const stored: StoredFile = { id: newId('file-'), filename: file.name || 'file.jsonl', purpose, bytes: Buffer.byteLength(content), content, createdAt: now };
      store.files.set(stored.id, stored);
      return send(response, 200, encodeFile(stored));
    }
    case 'openai-file': {
      const file = store.files.get(route.id);
      if (!file) return fail(404, `No such File object: ${route.id}`);
      if (!route.content) return send(response, 200, encodeFile(file));
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': Buffer.byteLength(file.content) });
      return void response.end(file.content);
    }
    case 'openai-batch-create': {
      const body = json();
      const file = typeof body?.input_file_id === 'string' ? store.files.get(body.input_file_id) : undefined;
      if (!body || !file) return fail(body ? 404 : 400, body ? `No such File object: ${String(body.input_file_id)}` : 'The body must be a JSON object');
      const livePath = typeof body.endpoint === 'string' ? openaiBatchEndpoints[body.endpoint] : undefined;
      if (livePath === undefined) return fail(400, `The simulator's batches serve ${Object.keys(openaiBatchEndpoints).join(' and ')}, not ${String(body.endpoint)}`);
      if (body.completion_window !== '24h') return fail(400, "completion_window must be '24h'");
      const lines: BatchLine[] = [];
      for (const [index, text] of file.content.split('\n').filter((line) => line.trim() !== '').entries()) {
        let line: { custom_id?: unknown; method?: unknown; url?: unknown; body?: unknown };
        try {
          line = JSON.parse(text) as typeof line;
        } catch {
          return fail(400, `Line ${index + 1} of the input file is not valid JSON`);
        }
        if (typeof line.custom_id !== 'string' || line.method !== 'POST' || line.url !== body.endpoint) return fail(400, `Line ${index + 1} needs a custom_id, the method POST and the url ${String(body.endpoint)}`);
        lines.push({ key: line.custom_id, path: livePath, body: line.body });
      }
      const batch: StoredBatch = {
        id: newId('batch_'),
        vendor,
        lines,
        auth,
        createdAt: now,
        dueAt: now + store.durationMs,
        state: 'running',
        canceled: false,
        openai: { inputFileId: file.id, endpoint: body.endpoint as string, completionWindow: '24h', expiresAt: now + store.completionWindowMs, metadata: body.metadata ?? null },
      };
      store.batches.set(batch.id, batch);
      return send(response, 200, encodeOpenaiBatch(batch));
    }
    case 'openai-batch': {
      const batch = await ownBatch(route.id);
      if (!batch) return fail(404, `No such Batch object: ${route.id}`);
      if (route.cancel) {
        if (batch.state === 'ended' && !batch.canceled) return fail(400, `Cannot cancel a batch with status ${openaiStatusOf(batch)}`);
        cancelOpenai(batch, now);
      }
      return send(response, 200, encodeOpenaiBatch(batch));
    }
    case 'anthropic-create': {
      const body = json();
      const requests = body?.requests;
      if (!Array.isArray(requests) || requests.length === 0) return fail(400, 'requests: must be a non-empty list');
      const lines: BatchLine[] = [];
      for (const [index, entry] of requests.entries()) {
        const item = entry as { custom_id?: unknown; params?: unknown };
        if (typeof item?.custom_id !== 'string' || typeof item.params !== 'object' || item.params === null) return fail(400, `requests.${index}: custom_id and params are required`);
        if (lines.some((line) => line.key === item.custom_id)) return fail(400, `requests.${index}.custom_id: must be unique within the batch`);
        lines.push({ key: item.custom_id, path: '/anthropic/v1/messages', body: item.params });
      }
      const batch: StoredBatch = { id: newId('msgbatch_'), vendor, lines, auth, createdAt: now, dueAt: now + store.durationMs, state: 'running', canceled: false };
      store.batches.set(batch.id, batch);
      return send(response, 200, encodeAnthropicBatch(batch, state));
    }
    case 'anthropic-list': {
      const all = [...store.batches.values()].filter((batch) => batch.vendor === 'anthropic').reverse();
      const limit = Math.min(Math.max(Number(query.get('limit') ?? 20) || 20, 1), 1000);
      let start = 0;
      let end = all.length;
      const after = query.get('after_id');
      const before = query.get('before_id');
      if (after !== null) start = all.findIndex((batch) => batch.id === after) + 1;
      if (before !== null) end = Math.max(all.findIndex((batch) => batch.id === before), 0);
      const slice = before !== null ? all.slice(Math.max(end - limit, 0), end) : all.slice(start, start + limit);
      const hasMore = before !== null ? end - limit > 0 : start + limit < all.length;
      for (const batch of slice) await settle(batch, state);
      return send(response, 200, { data: slice.map((batch) => encodeAnthropicBatch(batch, state)), has_more: hasMore, first_id: slice[0]?.id ?? null, last_id: slice[slice.length - 1]?.id ?? null });
    }
    case 'anthropic-batch': {
      const batch = await ownBatch(route.id);
      if (!batch) return fail(404, `message batch ${route.id} not found`);
      if (route.action === 'cancel') cancel(batch, now);
      if (route.action !== 'results') return send(response, 200, encodeAnthropicBatch(batch, state));
      if (batch.state !== 'ended') return fail(400, `message batch ${route.id} has not ended yet`);
      const text = batch.lines.map((line) => `${JSON.stringify({ custom_id: line.key, result: anthropicResultOf(batch, line) })}\n`).join('');
      response.writeHead(200, { 'content-type': 'application/binary', 'content-length': Buffer.byteLength(text) });
      return void response.end(text);
    }
    case 'gemini-create': {
      const body = json();
      const batchBody = body?.batch as { displayName?: unknown; display_name?: unknown; inputConfig?: { requests?: { requests?: unknown } }; input_config?: { requests?: { requests?: unknown } }; priority?: unknown } | undefined;
      const inputConfig = batchBody?.inputConfig ?? batchBody?.input_config;
      const requests = inputConfig?.requests?.requests;
      if (!Array.isArray(requests) || requests.length === 0) return fail(400, 'batch.inputConfig.requests.requests must be a non-empty list of inline requests');
      const model = route.model.startsWith('models/') ? route.model.slice('models/'.length) : route.model;
      const lines = requests.map((entry, index) => {
        const item = entry as { request?: Record<string, unknown>; metadata?: { key?: unknown } };
        const { model: _model, ...request } = item.request ?? {};
        return { key: typeof item.metadata?.key === 'string' ? item.metadata.key : String(index), path: `/gemini/v1beta/models/${encodeURIComponent(model)}:generateContent`, body: request, metadata: item.metadata } as BatchLine;
      });
      const displayName = String(batchBody?.displayName ?? batchBody?.display_name ?? 'batch');
      const batch: StoredBatch = { id: newId(''), vendor, lines, auth, createdAt: now, dueAt: now + store.durationMs, state: 'running', canceled: false, gemini: { model: `models/${model}`, displayName, inputConfig, priority: String(batchBody?.priority ?? 0) } };
      store.batches.set(batch.id, batch);
      return send(response, 200, encodeGeminiOperation(batch));
    }
    case 'gemini-batch': {
      const batch = await ownBatch(route.id);
      if (!batch) return fail(404, `Batch batches/${route.id} not found`);
      if (route.cancel) {
        cancel(batch, now);
        return send(response, 200, {});
      }
      return send(response, 200, encodeGeminiOperation(batch));
    }
  }
}

/** Reads a multipart body with the platform's own form parser. */
async function readForm(raw: Buffer, headers: IncomingHttpHeaders): Promise<FormData | undefined> {
  try {
    return await new Response(raw, { headers: { 'content-type': headers['content-type'] ?? '' } }).formData();
  } catch {
    return undefined;
  }
}

/** Cancel: a batch still running ends at once with no line run (the simulator runs lines only when the batch is due). */
function cancel(batch: StoredBatch, now: number): void {
  if (batch.state === 'ended') return;
  batch.canceled = true;
  batch.cancelAt = now;
  batch.state = 'ended';
  batch.endedAt = now;
}

/** Runs a due batch's lines against the live endpoints, once. */
async function settle(batch: StoredBatch, state: BatchState): Promise<void> {
  if (batch.state === 'ended' || Date.now() < batch.dueAt) return;
  batch.running ??= (async () => {
    await Promise.all(
      batch.lines.map(async (line) => {
        const answer = await fetch(`${state.selfUrl()}${line.path}`, { method: 'POST', headers: { ...batch.auth, 'content-type': 'application/json' }, body: JSON.stringify(line.body) });
        line.status = answer.status;
        line.answer = await answer.json().catch(() => null);
      }),
    );
    batch.state = 'ended';
    batch.endedAt = Date.now();
  })();
  await batch.running;
}

/** The live endpoint each OpenAI batch `endpoint` is answered by. */
const openaiBatchEndpoints: Record<string, string> = { '/v1/chat/completions': '/openai/v1/chat/completions', '/v1/embeddings': '/openai/v1/embeddings' };

/** Ends a cancelled or expired OpenAI batch once its lines in flight have stopped, unless another read ended it while this one waited. */
function endOpenai(batch: StoredBatch, state: BatchState): void {
  if (batch.state === 'ended') return;
  finishOpenai(batch, state.store);
  batch.state = 'ended';
  batch.endedAt = Date.now();
}

/**
 * An OpenAI batch's lines start, all at once, at the first read after it is due, and the batch
 * completes when the last answers (reads do not wait for them). A cancelled batch ends at the
 * first read after its cancel.
 */
async function settleOpenai(batch: StoredBatch, state: BatchState): Promise<void> {
  if (batch.state === 'ended') return;
  if (batch.canceled) {
    await batch.running;
    endOpenai(batch, state);
    return;
  }
  if (Date.now() >= batch.openai!.expiresAt) {
    // The window is over: lines in flight are dropped, those not started never run.
    batch.expired = true;
    batch.abort?.abort();
    await batch.running;
    endOpenai(batch, state);
    return;
  }
  if (Date.now() < batch.dueAt || batch.running) return;
  const abort = new AbortController();
  batch.abort = abort;
  batch.running = (async () => {
    await Promise.all(
      batch.lines.map(async (line) => {
        try {
          const answer = await fetch(`${state.selfUrl()}${line.path}`, { method: 'POST', headers: { ...batch.auth, 'content-type': 'application/json' }, body: JSON.stringify(line.body), signal: abort.signal });
          const body = await answer.json().catch(() => null);
          if (abort.signal.aborted) return;
          line.answer = body;
          line.status = answer.status;
        } catch {
          // Dropped at a cancel (or the simulator closing): the line stays unanswered.
        }
      }),
    );
    if (batch.canceled || batch.expired || batch.state === 'ended') return;
    finishOpenai(batch, state.store);
    batch.state = 'ended';
    batch.endedAt = Date.now();
  })();
}

/** `cancelling`: the lines in flight are dropped and the others never start; the next read ends it `cancelled`. */
function cancelOpenai(batch: StoredBatch, now: number): void {
  if (batch.state === 'ended' || batch.canceled) return;
  batch.canceled = true;
  batch.cancelAt = now;
  batch.abort?.abort();
}

/**
 * The output file (lines answered 200) and the error file (lines answered otherwise, and in a
 * cancelled batch the lines never run, with the reference's `batch_cancelled` error), each
 * line a `BatchRequestOutput`: `{id, custom_id, response: {status_code, request_id, body} | null, error: {code, message} | null}`.
 */
function finishOpenai(batch: StoredBatch, store: BatchStore): void {
  const unanswered = batch.expired
    ? { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }
    : { code: 'batch_cancelled', message: 'The batch was cancelled before this request executed.' };
  const lineOf = (line: BatchLine): string =>
    line.status === undefined
      ? JSON.stringify({ id: newId('batch_req_'), custom_id: line.key, response: null, error: unanswered })
      : JSON.stringify({ id: newId('batch_req_'), custom_id: line.key, response: { status_code: line.status, request_id: newId('req_'), body: line.answer }, error: null });
  const fileOf = (lines: BatchLine[], name: string): string | null => {
    if (lines.length === 0) return null;
    const content = lines.map((line) => `${lineOf(line)}\n`).join('');
    const file: StoredFile = { id: newId('file-'), filename: name, purpose: 'batch_output', bytes: Buffer.byteLength(content), content, createdAt: Date.now() };
    store.files.set(file.id, file);
    return file.id;
  };
  batch.openai!.outputFileId = fileOf(batch.lines.filter((line) => line.status === 200), `${batch.id}_output.jsonl`);
  batch.openai!.errorFileId = fileOf(batch.lines.filter((line) => line.status !== 200), `${batch.id}_error.jsonl`);
}

function openaiStatusOf(batch: StoredBatch): string {
  if (batch.expired && batch.state === 'ended') return 'expired';
  if (batch.canceled) return batch.state === 'ended' ? 'cancelled' : 'cancelling';
  return batch.state === 'ended' ? 'completed' : 'in_progress';
}

function encodeFile(file: StoredFile): Record<string, unknown> {
  return { id: file.id, object: 'file', bytes: file.bytes, created_at: Math.floor(file.createdAt / 1000), filename: file.filename, purpose: file.purpose, status: 'processed', status_details: null, expires_at: null };
}

const seconds = (at: number | undefined) => (at === undefined ? null : Math.floor(at / 1000));

function encodeOpenaiBatch(batch: StoredBatch): Record<string, unknown> {
  const openai = batch.openai!;
  const ran = batch.lines.filter((line) => line.status !== undefined);
  const status = openaiStatusOf(batch);
  return {
    id: batch.id,
    object: 'batch',
    endpoint: openai.endpoint,
    errors: null,
    input_file_id: openai.inputFileId,
    completion_window: openai.completionWindow,
    status,
    output_file_id: openai.outputFileId ?? null,
    error_file_id: openai.errorFileId ?? null,
    created_at: seconds(batch.createdAt),
    in_progress_at: seconds(batch.createdAt),
    expires_at: seconds(openai.expiresAt),
    finalizing_at: status === 'completed' ? seconds(batch.endedAt) : null,
    completed_at: status === 'completed' ? seconds(batch.endedAt) : null,
    failed_at: null,
    expired_at: status === 'expired' ? seconds(batch.endedAt) : null,
    cancelling_at: seconds(batch.cancelAt),
    cancelled_at: status === 'cancelled' ? seconds(batch.endedAt) : null,
    request_counts: { total: batch.lines.length, completed: ran.filter((line) => line.status === 200).length, failed: ran.filter((line) => line.status !== 200).length },
    metadata: openai.metadata,
  };
}

const iso = (at: number | undefined) => (at === undefined ? null : new Date(at).toISOString());

function anthropicResultOf(batch: StoredBatch, line: BatchLine): Record<string, unknown> {
  if (line.status === undefined) return { type: batch.canceled ? 'canceled' : 'expired' };
  return line.status === 200 ? { type: 'succeeded', message: line.answer } : { type: 'errored', error: line.answer };
}

function encodeAnthropicBatch(batch: StoredBatch, state: BatchState): Record<string, unknown> {
  const ended = batch.state === 'ended';
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  for (const line of batch.lines) {
    if (!ended) counts.processing++;
    else {
      const type = anthropicResultOf(batch, line).type as 'succeeded' | 'errored' | 'canceled' | 'expired';
      counts[type]++;
    }
  }
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : 'in_progress',
    request_counts: counts,
    ended_at: iso(batch.endedAt),
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.createdAt + 24 * 3600 * 1000),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancelAt),
    results_url: ended ? `${state.selfUrl()}/anthropic/v1/messages/batches/${batch.id}/results` : null,
  };
}

function encodeGeminiOperation(batch: StoredBatch): Record<string, unknown> {
  const ended = batch.state === 'ended';
  const stateName = batch.canceled ? 'BATCH_STATE_CANCELLED' : ended ? 'BATCH_STATE_SUCCEEDED' : batch.lines.some((line) => line.status !== undefined) ? 'BATCH_STATE_RUNNING' : 'BATCH_STATE_PENDING';
  const output = ended && !batch.canceled
    ? {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput',
        inlinedResponses: {
          inlinedResponses: batch.lines.map((line) => {
            const metadata = (line as BatchLine & { metadata?: unknown }).metadata;
            const result = line.status === 200 ? { response: line.answer } : { error: rpcStatusOf(line) };
            return metadata === undefined ? result : { ...result, metadata };
          }),
        },
      }
    : undefined;
  const succeeded = batch.lines.filter((line) => line.status === 200).length;
  const metadata = {
    '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
    name: `batches/${batch.id}`,
    model: batch.gemini!.model,
    displayName: batch.gemini!.displayName,
    inputConfig: batch.gemini!.inputConfig,
    priority: batch.gemini!.priority,
    state: stateName,
    createTime: iso(batch.createdAt),
    updateTime: iso(batch.endedAt ?? batch.createdAt),
    ...(ended ? { endTime: iso(batch.endedAt) } : {}),
    batchStats: { requestCount: String(batch.lines.length), successfulRequestCount: String(succeeded), failedRequestCount: String(batch.lines.filter((line) => line.status !== undefined && line.status !== 200).length), pendingRequestCount: String(ended ? 0 : batch.lines.length) },
    ...(output ? { output } : {}),
  };
  return { name: `batches/${batch.id}`, metadata, done: ended, ...(output ? { response: output } : {}) };
}

/**
 * google.rpc.Code, by the names Gemini's HTTP errors carry in `status`
 * (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto).
 */
const rpcCodes: Record<string, number> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

/**
 * A failed inline request's `error`: a `google.rpc.Status` (https://ai.google.dev/api/batch-mode#InlinedResponse),
 * whose `code` is the google.rpc.Code of the live error, not its HTTP status.
 */
function rpcStatusOf(line: BatchLine): Record<string, unknown> {
  const error = (line.answer as { error?: { status?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const code = (typeof error?.status === 'string' ? rpcCodes[error.status] : undefined) ?? 2;
  const message = typeof error?.message === 'string' ? error.message : `The request failed with HTTP ${line.status}`;
  return Array.isArray(error?.details) ? { code, message, details: error.details } : { code, message };
}
