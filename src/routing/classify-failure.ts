import { UpstreamError } from '../errors/upstream-error.js';
import type { CancelSignal } from '../core/cancel-signal.js';

/**
 * What a failed attempt at one candidate means, decided once for text, media and video:
 * - `client_abort`: the client left (or our own signal ended the call); not the provider's fault.
 * - `request_error`: the request itself is at fault (our refusal, a provider's 400/413/422);
 *   another provider would refuse it too, and the endpoint is healthy.
 * - `retryable`: the provider failed in a way the next candidate may not (5xx, 429, timeouts).
 * - `final`: the provider failed and retrying elsewhere is pointless or unsafe (401/403/404).
 */
export type FailureKind = 'client_abort' | 'request_error' | 'retryable' | 'final';

const requestStatuses = new Set([400, 413, 422]);

export function classifyFailure(error: unknown, signal: CancelSignal): FailureKind {
  if (signal.aborted || (error instanceof UpstreamError && error.code === 'aborted')) return 'client_abort';
  if (!(error instanceof UpstreamError)) return 'request_error';
  if (requestStatuses.has(error.status)) return 'request_error';
  return error.retryable ? 'retryable' : 'final';
}
