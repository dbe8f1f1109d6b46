import { performance } from 'node:perf_hooks';
import type { AppContext } from '../app-context.js';
import { GatewayError } from '../errors/gateway-error.js';
import { toClientError } from '../generation/to-client-error.js';
import { createAbortedError } from '../providers/shared/send-request.js';
import { UpstreamError } from '../providers/shared/upstream-error.js';
import type { Candidate } from '../routing/candidate.js';

/**
 * Tries the candidates in order, as text generation does: a retryable provider failure moves on
 * to the next endpoint or fallback model, anything else ends the request. `attempt` owns its
 * reservation: it settles on success and releases before it rethrows.
 */
export async function tryCandidates<T>(
  context: AppContext,
  candidates: Candidate[],
  signal: AbortSignal,
  attempt: (candidate: Candidate) => Promise<T>,
): Promise<{ candidate: Candidate; value: T }> {
  let lastFailure: UpstreamError | undefined;
  for (const candidate of candidates) {
    if (signal.aborted) break;
    const startedAt = performance.now();
    context.health.begin(candidate.healthKey);
    try {
      const value = await attempt(candidate);
      context.health.recordSuccess(candidate.healthKey, performance.now() - startedAt);
      return { candidate, value };
    } catch (error) {
      if (!(error instanceof UpstreamError) || error.code === 'aborted') throw error;
      context.health.recordFailure(candidate.healthKey);
      context.logger.warn({ provider: candidate.provider.id, model: candidate.endpoint.model, status: error.status, code: error.code, retryable: error.retryable }, 'upstream failed');
      lastFailure = error;
      if (!error.retryable) throw toClientError(error);
    }
  }
  if (signal.aborted) throw createAbortedError('client');
  throw lastFailure ? toClientError(lastFailure, candidates.length) : new GatewayError('no_available_provider', 'No provider could serve the request');
}

/** The call context of one candidate. */
export function callContextOf(context: AppContext, candidate: Candidate, signal: AbortSignal) {
  return { provider: candidate.provider, providerModel: candidate.endpoint.model, signal, dispatcher: context.providers.dispatcher(candidate.provider) };
}
