import type { ProviderConfig } from '../../config/types.js';
import { createAbortedError, UpstreamError } from '../../errors/upstream-error.js';
import type { ProviderBatchAdapter, ProviderBatchKind, ProviderBatchRequest, ProviderBatchResult, ProviderBatchState } from '../batch-adapter.js';
import { extractErrorMessage, readRetryAfterSeconds } from '../shared/send-request.js';
import type { JsonRecord } from '../shared/lenient-json.js';
import { convertToChatCompletionsRequest } from './convert-request.js';
import { convertChatCompletionObject } from './convert-response.js';
import { openaiEmbeddingsBody, readEmbeddings, type OpenAIEmbeddingsResponse } from './create-embeddings.js';
import { authorizationHeaders } from './transport.js';

/**
 * OpenAI's Batch API over its Files API, as the batch engine uses it for the lines of an endpoint
 * with `pricing.batch_discount` (https://platform.openai.com/docs/api-reference/batch,
 * https://platform.openai.com/docs/api-reference/files; the `openai` SDK's `batches.d.ts` and
 * `files.d.ts` for the fields):
 * - create: the requests as a JSONL file (`{custom_id, method: "POST", url, body}` a line),
 *   uploaded with `purpose: batch`, then `POST /batches {input_file_id, endpoint, completion_window: "24h"}`;
 * - retrieve: `GET /batches/{id}`, ended at `completed`, `failed`, `expired` or `cancelled`;
 * - results: the output and error files (`GET /files/{id}/content`), read line by line as they
 *   arrive, each a `BatchRequestOutput` `{custom_id, response: {status_code, body} | null, error: {code, message} | null}`;
 * - cancel: `POST /batches/{id}/cancel`.
 * An input file holds at most 50,000 requests and 200 MB, and an embeddings batch at most 50,000
 * inputs across its requests: a chunk over the bytes or inputs goes as several OpenAI batches,
 * one engine batch whose id lists theirs (`batch_a,batch_b`).
 *
 * OpenAI's own API only (`kindsFor`): Azure OpenAI's batch API takes deployments and its own
 * file routes. The bodies are those the live adapter sends to OpenAI itself
 * (`max_completion_tokens`), since the batch API is OpenAI's.
 */
export const openaiMaxRequestsPerBatch = 50_000;
/** "The file can contain up to 50,000 requests, and can be up to 200 MB in size" (batch create). */
export const openaiMaxBatchFileBytes = 200_000_000;
/** "/v1/embeddings batches are also restricted to a maximum of 50,000 embedding inputs across all requests in the batch." */
export const openaiMaxBatchEmbeddingInputs = 50_000;

/** Budget of a call that answers at once (create the batch, retrieve, cancel). */
const callTimeoutMs = 60_000;
/** Budget of moving a file (up to 200 MB) either way. */
const transferTimeoutMs = 15 * 60_000;

const endpointOf: Record<ProviderBatchKind, string> = { text: '/v1/chat/completions', embeddings: '/v1/embeddings' };
const bothKinds: ReadonlySet<ProviderBatchKind> = new Set<ProviderBatchKind>(['text', 'embeddings']);
const noKinds: ReadonlySet<ProviderBatchKind> = new Set<ProviderBatchKind>();
const endedStatuses = new Set(['completed', 'failed', 'expired', 'cancelled']);
/** The target the bodies are built for: OpenAI's own API, where the batch API lives. */
const openaiBaseUrl = 'https://api.openai.com/v1';

/** One OpenAI batch as `retrieve` saw it: what `results` needs. */
export interface OpenAIBatchPart {
  id: string;
  status: string;
  inputFileId: string | null;
  outputFileId: string | null;
  errorFileId: string | null;
  total: number;
  /** The batch's own errors (a `failed` batch: why its input was refused). */
  errors: string[];
}

/** The `resultsRef` of an ended batch. */
export interface OpenAIBatchResultsRef {
  parts: OpenAIBatchPart[];
}

export const openaiBatchAdapter: ProviderBatchAdapter = {
  api: 'openai',
  maxRequestsPerBatch: openaiMaxRequestsPerBatch,

  kindsFor(provider) {
    return provider.api === 'openai' && provider.platform === undefined ? bothKinds : noKinds;
  },

  encodeText(request, providerModel) {
    return convertToChatCompletionsRequest(request, { providerModel, baseUrl: openaiBaseUrl, stream: false }) as unknown as Record<string, unknown>;
  },

  decodeText(body, provider) {
    return convertChatCompletionObject(body as JsonRecord, provider.id);
  },

  encodeEmbeddings(request, providerModel) {
    return openaiEmbeddingsBody(request, providerModel);
  },

  decodeEmbeddings(body, request) {
    return readEmbeddings(body as OpenAIEmbeddingsResponse, request.inputs.length, 'openai');
  },

  async create(provider, _providerModel, kind, requests, signal) {
    if (requests.length === 0) throw new UpstreamError({ provider: provider.id, status: 400, retryable: false, message: 'An OpenAI batch needs at least one request' });
    const endpoint = endpointOf[kind];
    const ids: string[] = [];
    try {
      for (const file of splitIntoFiles(requests, endpoint, kind)) ids.push(await createOne(provider, endpoint, file, signal));
    } catch (error) {
      // Batches already made would run (and be billed) with nobody reading them.
      await Promise.all(ids.map((id) => cancelOne(provider, id, AbortSignal.timeout(callTimeoutMs)).catch(() => undefined)));
      throw error;
    }
    return { id: ids.join(','), ended: false };
  },

  async retrieve(provider, batchId, signal) {
    const parts: OpenAIBatchPart[] = [];
    for (const id of batchId.split(',')) parts.push(readPart(await callJson(provider, 'GET', `/batches/${encodeURIComponent(id)}`, signal)));
    const ended = parts.every((part) => endedStatuses.has(part.status));
    const ref: OpenAIBatchResultsRef = { parts };
    return { id: batchId, ended, resultsRef: ref };
  },

  async results(provider, state, signal) {
    const ref = isResultsRef(state.resultsRef) ? state.resultsRef : ((await openaiBatchAdapter.retrieve(provider, state.id, signal)).resultsRef as OpenAIBatchResultsRef);
    const results: ProviderBatchResult[] = [];
    for (const part of ref.parts) results.push(...(await readPartResults(provider, part, signal)));
    return results;
  },

  async cancel(provider, batchId, signal) {
    for (const id of batchId.split(',')) {
      try {
        await cancelOne(provider, id, signal);
      } catch (error) {
        // One part of several may have ended already (OpenAI refuses to cancel it): that is no failure.
        if (!(error instanceof UpstreamError) || error.status < 400 || error.status >= 500) throw error;
        const part = readPart(await callJson(provider, 'GET', `/batches/${encodeURIComponent(id)}`, signal));
        if (!endedStatuses.has(part.status)) throw error;
      }
    }
  },
};

/** The JSONL files of a chunk: one unless it passes OpenAI's bytes (or embedding inputs) per batch. */
function splitIntoFiles(requests: readonly ProviderBatchRequest[], endpoint: string, kind: ProviderBatchKind): Buffer[][] {
  const files: Buffer[][] = [];
  let lines: Buffer[] = [];
  let bytes = 0;
  let inputs = 0;
  for (const request of requests) {
    const line = Buffer.from(`${JSON.stringify({ custom_id: request.customId, method: 'POST', url: endpoint, body: request.body })}\n`);
    const lineInputs = kind === 'embeddings' ? inputCount(request.body) : 0;
    if (lines.length > 0 && (bytes + line.length > openaiMaxBatchFileBytes || inputs + lineInputs > openaiMaxBatchEmbeddingInputs)) {
      files.push(lines);
      lines = [];
      bytes = 0;
      inputs = 0;
    }
    lines.push(line);
    bytes += line.length;
    inputs += lineInputs;
  }
  files.push(lines);
  return files;
}

function inputCount(body: Record<string, unknown>): number {
  const input = body.input;
  // A list of strings or of token lists is that many inputs; one string or one token list is one.
  if (Array.isArray(input) && input.length > 0 && (typeof input[0] === 'string' || Array.isArray(input[0]))) return input.length;
  return 1;
}

async function createOne(provider: ProviderConfig, endpoint: string, lines: Buffer[], signal: AbortSignal): Promise<string> {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob(lines, { type: 'application/jsonl' }), 'switchyard-batch.jsonl');
  const file = await callJson(provider, 'POST', '/files', signal, form, transferTimeoutMs);
  const fileId = typeof file.id === 'string' ? file.id : undefined;
  if (!fileId) throw protocolError(provider, 'answered a file upload without an id', file);
  let batch: Record<string, unknown>;
  try {
    batch = await callJson(provider, 'POST', '/batches', signal, JSON.stringify({ input_file_id: fileId, endpoint, completion_window: '24h' }));
  } catch (error) {
    // The uploaded file would stay in the account's storage with no batch to use it.
    await call(provider, 'DELETE', `/files/${encodeURIComponent(fileId)}`, AbortSignal.timeout(callTimeoutMs)).catch(() => undefined);
    throw error;
  }
  if (typeof batch.id !== 'string' || batch.id === '' || batch.id.includes(',')) throw protocolError(provider, 'answered a batch without a usable id', batch);
  return batch.id;
}

async function cancelOne(provider: ProviderConfig, id: string, signal: AbortSignal): Promise<void> {
  await callJson(provider, 'POST', `/batches/${encodeURIComponent(id)}/cancel`, signal);
}

function readPart(batch: Record<string, unknown>): OpenAIBatchPart {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  const counts = batch.request_counts as { total?: unknown } | null | undefined;
  const errors = (batch.errors as { data?: unknown } | null | undefined)?.data;
  return {
    id: String(batch.id),
    status: String(batch.status),
    inputFileId: text(batch.input_file_id),
    outputFileId: text(batch.output_file_id),
    errorFileId: text(batch.error_file_id),
    total: typeof counts?.total === 'number' ? counts.total : 0,
    errors: Array.isArray(errors) ? errors.slice(0, 5).map((error: { line?: unknown; message?: unknown; code?: unknown }) => `${error.line === undefined || error.line === null ? '' : `line ${String(error.line)}: `}${String(error.message ?? error.code ?? 'invalid')}`) : [],
  };
}

function isResultsRef(value: unknown): value is OpenAIBatchResultsRef {
  return typeof value === 'object' && value !== null && Array.isArray((value as { parts?: unknown }).parts);
}

/**
 * The results of one ended OpenAI batch: its output and error files' lines; then, for a batch
 * that ended before running every request (expired, cancelled, failed), the requests with no line
 * (read from its input file), as OpenAI's reference says they end.
 */
async function readPartResults(provider: ProviderConfig, part: OpenAIBatchPart, signal: AbortSignal): Promise<ProviderBatchResult[]> {
  const results = new Map<string, ProviderBatchResult>();
  for (const fileId of [part.outputFileId, part.errorFileId]) {
    if (fileId === null) continue;
    await forEachLine(provider, fileId, signal, (line) => {
      const result = readOutputLine(line);
      if (result && !results.has(result.customId)) results.set(result.customId, result);
    });
  }
  // A batch that failed validation may count no request at all (`total: 0`).
  if (part.status !== 'completed' && (part.total === 0 || results.size < part.total) && part.inputFileId !== null) {
    await forEachLine(provider, part.inputFileId, signal, (line) => {
      const customId = typeof line.custom_id === 'string' ? line.custom_id : undefined;
      if (customId === undefined || results.has(customId)) return;
      results.set(customId, unansweredResult(customId, part));
    });
  }
  return [...results.values()];
}

function unansweredResult(customId: string, part: OpenAIBatchPart): ProviderBatchResult {
  if (part.status === 'expired') return { customId, kind: 'expired' };
  if (part.status === 'cancelled') return { customId, kind: 'canceled' };
  const message = part.errors.length > 0 ? `OpenAI refused the batch: ${part.errors.join('; ')}` : `OpenAI ended the batch ${part.status} without running this request`;
  return { customId, kind: 'errored', status: part.status === 'failed' ? 400 : 502, error: openaiError(message, part.status === 'failed' ? 'invalid_request_error' : 'server_error', null) };
}

/** One `BatchRequestOutput` line. */
function readOutputLine(line: JsonRecord): ProviderBatchResult | undefined {
  const customId = line.custom_id;
  if (typeof customId !== 'string') return undefined;
  const response = line.response as { status_code?: unknown; body?: unknown } | null | undefined;
  const error = line.error as { code?: unknown; message?: unknown } | null | undefined;
  if (response && typeof response.status_code === 'number') {
    const body = response.body;
    if (response.status_code >= 200 && response.status_code < 300) {
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) return { customId, kind: 'succeeded', body: body as Record<string, unknown> };
      return { customId, kind: 'errored', status: 502, error: openaiError('OpenAI answered this request without a JSON object', 'server_error', null) };
    }
    return { customId, kind: 'errored', status: response.status_code, error: body ?? openaiError(`OpenAI answered ${response.status_code}`, 'server_error', null) };
  }
  if (error) {
    const code = typeof error.code === 'string' ? error.code : null;
    if (code === 'batch_expired') return { customId, kind: 'expired' };
    if (code === 'batch_cancelled') return { customId, kind: 'canceled' };
    const message = typeof error.message === 'string' ? error.message : 'OpenAI could not run this request';
    // `request_timeout`: "the underlying call to the model timed out".
    return { customId, kind: 'errored', status: code === 'request_timeout' ? 504 : 500, error: openaiError(message, 'server_error', code) };
  }
  return { customId, kind: 'errored', status: 502, error: openaiError('OpenAI wrote a result line with neither a response nor an error', 'server_error', null) };
}

function openaiError(message: string, type: string, code: string | null): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/** Reads a file's JSONL as it arrives, one parsed line at a time (output files can be large). */
async function forEachLine(provider: ProviderConfig, fileId: string, signal: AbortSignal, visit: (line: JsonRecord) => void): Promise<void> {
  const response = await call(provider, 'GET', `/files/${encodeURIComponent(fileId)}/content`, signal, undefined, transferTimeoutMs);
  const take = (text: string) => {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw protocolError(provider, `sent a line of file ${fileId} that is not JSON`, text.slice(0, 500));
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) visit(value as JsonRecord);
  };
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let start = 0;
      let end: number;
      while ((end = pending.indexOf('\n', start)) !== -1) {
        take(pending.slice(start, end));
        start = end + 1;
      }
      pending = pending.slice(start);
    }
  } catch (error) {
    // The rest of the file is not wanted: give the connection back.
    await reader.cancel().catch(() => undefined);
    throw toUpstream(provider, error, signal);
  } finally {
    reader.releaseLock();
  }
  take(pending + decoder.decode());
}

async function callJson(provider: ProviderConfig, method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: string | FormData, timeoutMs = callTimeoutMs): Promise<Record<string, unknown>> {
  const response = await call(provider, method, path, signal, body, timeoutMs);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw toUpstream(provider, error, signal);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw protocolError(provider, `answered ${method} ${path} with a body that is not a JSON object`, text.slice(0, 500));
}

/**
 * One call under the provider's base URL, with its auth and configured headers, as the live
 * transport sends them; a redirect is refused rather than followed (the calls go to the
 * configured provider only). Rejects with `UpstreamError`.
 */
async function call(provider: ProviderConfig, method: 'GET' | 'POST' | 'DELETE', path: string, signal: AbortSignal, body?: string | FormData, timeoutMs = callTimeoutMs): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...provider.headers, ...(await authorizationHeaders(provider)) };
  if (typeof body === 'string') headers['content-type'] = 'application/json';
  const url = `${provider.baseUrl.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  } catch (error) {
    throw toUpstream(provider, error, signal);
  }
  if (response.status >= 200 && response.status < 300) return response;
  const text = await response.text().catch(() => '');
  throw new UpstreamError({
    provider: provider.id,
    status: response.status,
    message: `${provider.id} answered ${method} ${path} with ${response.status}: ${extractErrorMessage(text)}`,
    body: text,
    retryAfterSeconds: readRetryAfterSeconds(Object.fromEntries(response.headers)),
  });
}

function toUpstream(provider: ProviderConfig, error: unknown, signal: AbortSignal): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (signal.aborted) return createAbortedError(provider.id, error);
  const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
  return new UpstreamError({
    provider: provider.id,
    status: 0,
    code: timedOut ? 'upstream_timeout' : 'upstream_error',
    message: timedOut ? `${provider.id} batch call timed out` : `${provider.id} batch call failed: ${describe(error)}`,
    cause: error,
  });
}

/** fetch's "fetch failed" names its reason (ECONNREFUSED, a TLS failure) only in its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

function protocolError(provider: ProviderConfig, problem: string, body: unknown): UpstreamError {
  return new UpstreamError({ provider: provider.id, status: 502, message: `${provider.id} ${problem}`, body: typeof body === 'string' ? body : JSON.stringify(body).slice(0, 2000) });
}
