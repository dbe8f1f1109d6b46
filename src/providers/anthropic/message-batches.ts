import type { ProviderConfig } from '../../config/types.js';
import { UpstreamError } from '../../errors/upstream-error.js';
import { messagesHeaders, messagesUrl } from './transport.js';

/**
 * Anthropic's Message Batches API, as the batch engine uses it for the lines an endpoint with
 * `pricing.batch_discount` serves (https://docs.claude.com/en/api/creating-message-batches,
 * https://docs.claude.com/en/api/retrieving-message-batches,
 * https://docs.claude.com/en/api/retrieving-message-batch-results). Anthropic's own API only:
 * the batch endpoints live beside `/v1/messages`.
 */
export interface MessageBatchRequest {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique within the batch. */
  custom_id: string;
  params: Record<string, unknown>;
}

export interface MessageBatchStatus {
  id: string;
  processing_status: 'in_progress' | 'canceling' | 'ended';
  results_url: string | null;
}

/** One line of the results JSONL. */
export interface MessageBatchResult {
  custom_id: string;
  result:
    | { type: 'succeeded'; message: Record<string, unknown> & { usage?: Record<string, unknown> } }
    | { type: 'errored'; error: unknown }
    | { type: 'canceled' }
    | { type: 'expired' };
}

/** Budget of one call to the batch API (it answers at once: the work happens later). */
const callTimeoutMs = 60_000;

export async function createMessageBatch(provider: ProviderConfig, requests: readonly MessageBatchRequest[], signal: AbortSignal): Promise<MessageBatchStatus> {
  const response = await send(provider, `${messagesUrl(provider)}/batches`, signal, { method: 'POST', body: JSON.stringify({ requests }) });
  return (await response.json()) as MessageBatchStatus;
}

export async function retrieveMessageBatch(provider: ProviderConfig, batchId: string, signal: AbortSignal): Promise<MessageBatchStatus> {
  const response = await send(provider, `${messagesUrl(provider)}/batches/${encodeURIComponent(batchId)}`, signal, { method: 'GET' });
  return (await response.json()) as MessageBatchStatus;
}

/** The results of an ended batch, read from its `results_url` (JSONL, one result per request). */
export async function readMessageBatchResults(provider: ProviderConfig, resultsUrl: string, signal: AbortSignal): Promise<MessageBatchResult[]> {
  const response = await send(provider, resultsUrl, signal, { method: 'GET' });
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as MessageBatchResult);
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
