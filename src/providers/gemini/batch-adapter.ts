import type { ProviderConfig } from '../../config/types.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { ProviderBatchAdapter, ProviderBatchKind, ProviderBatchRequest, ProviderBatchResult, ProviderBatchState } from '../batch-adapter.js';
import { convertRequest } from './convert-request.js';
import { convertResponse } from './convert-response.js';
import { convertOptionsFor } from './gemini-adapter.js';
import type { GeminiResponse } from './gemini-wire-types.js';
import { mapHttpError } from './map-error.js';
import { geminiHeaders } from './transport.js';

/**
 * Gemini batch mode with inline requests (https://ai.google.dev/gemini-api/docs/batch-mode,
 * https://ai.google.dev/api/batch-mode), as the batch engine uses it for the lines an endpoint
 * with `pricing.batch_discount` serves: `models/{model}:batchGenerateContent` creates a batch (a
 * long-running operation named `batches/{id}`), the operation is polled until its
 * `metadata.state` is final, and its `GenerateContentBatchOutput` holds one inlined response per
 * request, told apart by the `metadata.key` each request carried (the engine's custom id).
 *
 * The Gemini API's own (AI Studio) only: Vertex AI's batch prediction reads its input from Cloud
 * Storage or BigQuery, so on a Vertex provider no kind is served and every line runs on the
 * gateway's engine. Text only: `asyncBatchEmbedContent` is not simulated, so embeddings lines run
 * on the engine at list price.
 */

/** Inline requests share one request of at most 20 MB (https://ai.google.dev/gemini-api/docs/batch-mode#inline-requests). */
const maxBatchBytes = 20_000_000;

/** 200 requests leave each about 100 KB of the 20 MB; a batch over the bytes is refused before it is sent. */
const maxRequestsPerBatch = 200;

/** Budget of one call that answers at once (create, poll, cancel); the work happens later. */
const callTimeoutMs = 60_000;

/** Budget of the read of an ended batch, whose operation carries every response (up to tens of MB). */
const resultsTimeoutMs = 300_000;

/** https://ai.google.dev/api/batch-mode#BatchState */
const finalStates: ReadonlySet<string> = new Set(['BATCH_STATE_SUCCEEDED', 'BATCH_STATE_FAILED', 'BATCH_STATE_CANCELLED', 'BATCH_STATE_EXPIRED']);

const textOnly: ReadonlySet<ProviderBatchKind> = new Set(['text']);
const none: ReadonlySet<ProviderBatchKind> = new Set();

/** The operation `batches.get` and `models.batchGenerateContent` answer with. */
interface BatchOperation {
  name?: string;
  done?: boolean;
  error?: RpcStatus;
  metadata?: {
    state?: string;
    inputConfig?: { requests?: { requests?: Array<{ metadata?: { key?: unknown } }> } };
    output?: BatchOutput;
  };
  response?: BatchOutput;
}

interface BatchOutput {
  inlinedResponses?: { inlinedResponses?: InlinedResponse[] };
}

/** https://ai.google.dev/api/batch-mode#InlinedResponse */
interface InlinedResponse {
  response?: Record<string, unknown>;
  error?: RpcStatus;
  metadata?: { key?: unknown };
}

/** `google.rpc.Status`: `code` is a google.rpc.Code. */
interface RpcStatus {
  code?: number;
  message?: string;
  details?: unknown;
}

/** What `results` needs of a polled batch: its operation name and the state it ended in. */
interface GeminiResultsRef {
  name: string;
  state: string;
}

export const geminiBatchAdapter: ProviderBatchAdapter = {
  api: 'gemini',
  maxRequestsPerBatch,

  kindsFor(provider) {
    return provider.platform?.kind === 'vertex' ? none : textOnly;
  },

  encodeText(request, providerModel) {
    return { ...convertRequest(request, convertOptionsFor(providerModel)) };
  },

  decodeText(body) {
    return convertResponse(body as GeminiResponse);
  },

  async create(provider, providerModel, kind, requests, signal) {
    if (kind !== 'text') throw new UpstreamError({ provider: provider.id, status: 400, retryable: false, message: `Gemini batch mode serves text lines here, not ${kind}` });
    const body = JSON.stringify({
      batch: {
        display_name: `switchyard-${requests.length}-${kind}`,
        input_config: { requests: { requests: requests.map(toInlinedRequest) } },
      },
    });
    if (Buffer.byteLength(body) > maxBatchBytes) {
      throw new UpstreamError({
        provider: provider.id,
        status: 413,
        retryable: false,
        message: `The Gemini batch of ${requests.length} requests is ${Buffer.byteLength(body)} bytes, over the 20 MB of inline requests`,
      });
    }
    const url = `${baseUrl(provider)}/models/${encodeURIComponent(providerModel)}:batchGenerateContent`;
    return toState(provider, await send(provider, url, signal, callTimeoutMs, { method: 'POST', body }));
  },

  async retrieve(provider, batchId, signal) {
    return toState(provider, await send(provider, operationUrl(provider, batchId), signal, callTimeoutMs, { method: 'GET' }));
  },

  async results(provider, state, signal) {
    const ref = state.resultsRef as Partial<GeminiResultsRef> | undefined;
    const operation = await send(provider, operationUrl(provider, ref?.name ?? state.id), signal, resultsTimeoutMs, { method: 'GET' });
    return readResults(operation);
  },

  async cancel(provider, batchId, signal) {
    await send(provider, `${operationUrl(provider, batchId)}:cancel`, signal, callTimeoutMs, { method: 'POST', body: '{}' });
  },
};

/** https://ai.google.dev/api/batch-mode#InlinedRequest */
function toInlinedRequest(request: ProviderBatchRequest): Record<string, unknown> {
  return { request: request.body, metadata: { key: request.customId } };
}

function toState(provider: ProviderConfig, operation: BatchOperation): ProviderBatchState {
  if (typeof operation.name !== 'string') throw new UpstreamError({ provider: provider.id, status: 502, message: 'The Gemini batch operation has no name' });
  const state = operation.metadata?.state ?? 'BATCH_STATE_UNSPECIFIED';
  const ended = operation.done === true || finalStates.has(state);
  const resultsRef: GeminiResultsRef = { name: operation.name, state };
  return ended ? { id: operation.name, ended, resultsRef } : { id: operation.name, ended };
}

/**
 * One result per request the operation names: by the `metadata.key` of its inlined response, or,
 * where the service leaves that out, by position among the requests its input config lists (the
 * inlined responses follow the requests' order). A request without a response ended with its
 * batch: canceled or expired, or errored with the batch's own error when the batch failed.
 */
function readResults(operation: BatchOperation): ProviderBatchResult[] {
  const state = operation.metadata?.state;
  const output = operation.response ?? operation.metadata?.output;
  const responses = output?.inlinedResponses?.inlinedResponses ?? [];
  const inputKeys = (operation.metadata?.inputConfig?.requests?.requests ?? []).map((entry) => (typeof entry?.metadata?.key === 'string' ? entry.metadata.key : undefined));
  const results: ProviderBatchResult[] = [];
  const answered = new Set<string>();
  responses.forEach((entry, index) => {
    const key = typeof entry.metadata?.key === 'string' ? entry.metadata.key : inputKeys.length === responses.length ? inputKeys[index] : undefined;
    if (key === undefined || answered.has(key)) return;
    answered.add(key);
    if (entry.response) results.push({ customId: key, kind: 'succeeded', body: entry.response });
    else results.push(erroredResult(key, entry.error));
  });
  for (const key of inputKeys) {
    if (key === undefined || answered.has(key)) continue;
    answered.add(key);
    if (state === 'BATCH_STATE_CANCELLED') results.push({ customId: key, kind: 'canceled' });
    else if (state === 'BATCH_STATE_EXPIRED') results.push({ customId: key, kind: 'expired' });
    else if (state === 'BATCH_STATE_FAILED') results.push(erroredResult(key, operation.error));
  }
  return results;
}

/** An errored request, in the envelope the live `generateContent` answers with (`{error: {code, message, status}}`, code the HTTP status). */
function erroredResult(customId: string, error: RpcStatus | undefined): ProviderBatchResult {
  const status = httpStatusOf(error?.code);
  const envelope: Record<string, unknown> = { code: status, message: error?.message ?? 'The request failed in the batch', status: rpcNames[error?.code ?? 2] ?? statusNameOf(status) };
  if (error?.details !== undefined) envelope.details = error.details;
  return { customId, kind: 'errored', status, error: { error: envelope } };
}

/**
 * google.rpc.Code → the HTTP status the live endpoint answers with, after google/rpc/code.proto
 * (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto). A code that is
 * already an HTTP error status is taken as it is.
 */
const httpStatusByRpcCode: Record<number, number> = {
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

const rpcNames: Record<number, string> = {
  1: 'CANCELLED',
  2: 'UNKNOWN',
  3: 'INVALID_ARGUMENT',
  4: 'DEADLINE_EXCEEDED',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED',
  8: 'RESOURCE_EXHAUSTED',
  9: 'FAILED_PRECONDITION',
  10: 'ABORTED',
  11: 'OUT_OF_RANGE',
  12: 'UNIMPLEMENTED',
  13: 'INTERNAL',
  14: 'UNAVAILABLE',
  15: 'DATA_LOSS',
  16: 'UNAUTHENTICATED',
};

function httpStatusOf(code: number | undefined): number {
  if (code === undefined) return 500;
  if (code >= 400 && code <= 599) return code;
  return httpStatusByRpcCode[code] ?? 500;
}

function statusNameOf(status: number): string {
  const code = Object.entries(httpStatusByRpcCode).find(([, http]) => http === status)?.[0];
  return code === undefined ? 'UNKNOWN' : rpcNames[Number(code)]!;
}

function baseUrl(provider: ProviderConfig): string {
  return provider.baseUrl.replace(/\/+$/, '');
}

/** The operation's URL under the configured base; only a `batches/{id}` name (or a bare id) is taken, so no call leaves it. */
function operationUrl(provider: ProviderConfig, batchId: string): string {
  const name = batchId.startsWith('batches/') ? batchId : `batches/${batchId}`;
  if (!/^batches\/[A-Za-z0-9_-]+$/.test(name)) throw new UpstreamError({ provider: provider.id, status: 400, retryable: false, message: `Not a Gemini batch name: ${batchId}` });
  return `${baseUrl(provider)}/${name}`;
}

async function send(provider: ProviderConfig, url: string, signal: AbortSignal, timeoutMs: number, init: { method: 'GET' | 'POST'; body?: string }): Promise<BatchOperation> {
  const headers = { ...provider.headers, ...(await geminiHeaders(provider)), 'content-type': 'application/json' };
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, headers, redirect: 'error', signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
    text = await response.text();
  } catch (error) {
    throw new UpstreamError({ provider: provider.id, status: 502, message: `The Gemini batch call failed: ${(error as Error).message}`, cause: error });
  }
  if (!response.ok) {
    // mapHttpError reads the body: a bad key (400 API_KEY_INVALID) becomes 401, a 429's RetryInfo its wait.
    throw mapHttpError(
      new UpstreamError({
        provider: provider.id,
        status: response.status >= 500 ? 502 : response.status,
        message: `The Gemini batch call answered ${response.status}: ${text.slice(0, 500)}`,
        body: text,
      }),
    );
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as BatchOperation;
  } catch {
    // Reported below.
  }
  throw new UpstreamError({ provider: provider.id, status: 502, message: `The Gemini batch call answered ${response.status} with a body that is not a JSON object` });
}
