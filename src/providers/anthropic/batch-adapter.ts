import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import type { AnthropicMessage } from '../../wire/anthropic/wire-types.js';
import type { ProviderBatchAdapter, ProviderBatchKind, ProviderBatchResult, ProviderBatchState } from '../batch-adapter.js';
import { convertToAnthropicRequest } from './convert-request.js';
import { convertAnthropicResponse } from './convert-response.js';
import { emulatesJsonMode, jsonModeResult } from './emulate-json-mode.js';
import { statusOfAnthropicErrorType } from './map-error.js';
import { messagesHeaders, messagesUrl } from './transport.js';

/**
 * Anthropic's Message Batches API as a provider batch adapter
 * (https://docs.claude.com/en/api/creating-message-batches,
 * https://docs.claude.com/en/api/retrieving-message-batches,
 * https://docs.claude.com/en/api/retrieving-message-batch-results,
 * https://docs.claude.com/en/api/canceling-message-batches). Anthropic's own API only: the batch
 * endpoints live beside `/v1/messages`; a cloud platform (Bedrock, Vertex AI) has no such API here.
 * Text lines only: Anthropic has no embeddings.
 */
interface MessageBatchStatus {
  id: string;
  processing_status: 'in_progress' | 'canceling' | 'ended';
  results_url: string | null;
}

/** One line of the results JSONL. */
interface MessageBatchResult {
  custom_id: string;
  result: { type: 'succeeded'; message: Record<string, unknown> } | { type: 'errored'; error: unknown } | { type: 'canceled' } | { type: 'expired' };
}

/** Budget of one call to the batch API (it answers at once: the work happens later). */
const callTimeoutMs = 60_000;
const textOnly: ReadonlySet<ProviderBatchKind> = new Set(['text']);
const none: ReadonlySet<ProviderBatchKind> = new Set();

export const anthropicBatchAdapter: ProviderBatchAdapter = {
  api: 'anthropic',
  kindsFor: (provider) => (provider.platform === undefined ? textOnly : none),
  // Anthropic's limit: 100,000 requests (or 256 MB) per batch.
  maxRequestsPerBatch: 100_000,
  encodeText: (request, providerModel) => convertToAnthropicRequest(request, providerModel, false) as unknown as Record<string, unknown>,
  decodeText: (body, _provider, request?: TextRequest) => {
    const result = convertAnthropicResponse(body as unknown as AnthropicMessage);
    return request !== undefined && emulatesJsonMode(request) ? jsonModeResult(result) : result;
  },
  async create(provider, _providerModel, _kind, requests, signal) {
    const body = { requests: requests.map((request) => ({ custom_id: request.customId, params: request.body })) };
    return stateOf((await (await send(provider, batchesUrl(provider), signal, { method: 'POST', body: JSON.stringify(body) })).json()) as MessageBatchStatus);
  },
  async retrieve(provider, batchId, signal) {
    return stateOf((await (await send(provider, `${batchesUrl(provider)}/${encodeURIComponent(batchId)}`, signal, { method: 'GET' })).json()) as MessageBatchStatus);
  },
  async results(provider, state, signal) {
    if (typeof state.resultsRef !== 'string') throw new UpstreamError({ provider: provider.id, status: 502, message: `The message batch ${state.id} ended without a results_url` });
    const text = await (await send(provider, state.resultsRef, signal, { method: 'GET' })).text();
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => resultOf(JSON.parse(line) as MessageBatchResult));
  },
  async cancel(provider, batchId, signal) {
    await send(provider, `${batchesUrl(provider)}/${encodeURIComponent(batchId)}/cancel`, signal, { method: 'POST' });
  },
};

function batchesUrl(provider: ProviderConfig): string {
  return `${messagesUrl(provider)}/batches`;
}

function stateOf(status: MessageBatchStatus): ProviderBatchState {
  const ended = status.processing_status === 'ended';
  return { id: status.id, ended, resultsRef: ended ? (status.results_url ?? undefined) : undefined };
}

function resultOf(item: MessageBatchResult): ProviderBatchResult {
  const { result } = item;
  if (result.type === 'succeeded') return { customId: item.custom_id, kind: 'succeeded', body: result.message };
  if (result.type === 'errored') return { customId: item.custom_id, kind: 'errored', status: errorStatusOf(result.error), error: result.error };
  return { customId: item.custom_id, kind: result.type };
}

/** The HTTP status an errored result's error type stands for, as for a live answer. */
function errorStatusOf(envelope: unknown): number {
  const type = (envelope as { error?: { type?: unknown } } | null)?.error?.type;
  return (typeof type === 'string' ? statusOfAnthropicErrorType[type] : undefined) ?? 500;
}

async function send(provider: ProviderConfig, url: string, signal: AbortSignal, init: { method: string; body?: string }): Promise<Response> {
  const headers = { ...provider.headers, ...(await messagesHeaders(provider, undefined)), 'content-type': 'application/json' };
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers, signal: AbortSignal.any([signal, AbortSignal.timeout(callTimeoutMs)]) });
  } catch (error) {
    throw new UpstreamError({ provider: provider.id, status: 502, message: `The message batch call failed: ${(error as Error).message}` });
  }
  if (!response.ok) throw new UpstreamError({ provider: provider.id, status: response.status >= 500 ? 502 : response.status, message: `The message batch call answered ${response.status}: ${(await response.text()).slice(0, 500)}` });
  return response;
}
