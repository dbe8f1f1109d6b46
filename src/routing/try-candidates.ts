import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ProviderRegistry } from '../providers/registry.js';
import type { EndpointHealth } from './endpoint-health.js';
import { GatewayError } from '../errors/gateway-error.js';
import { toClientError } from '../errors/to-client-error.js';
import { createAbortedError, UpstreamError } from '../errors/upstream-error.js';
import type { Candidate } from '../catalog/candidate.js';
import { classifyFailure } from './classify-failure.js';
import type { HealthAttempt } from '../billing/paid-call.js';
import { logUpstreamFailure } from './log-upstream-failure.js';
import type { CancelSignal } from '../core/cancel-signal.js';

/**
 * The services the candidate loop uses: its own list, since the app context is above routing
 * (the work that calls the loop hands its context in, which has these and more).
 */
export interface CandidateLoopDependencies {
  health: EndpointHealth;
  logger: Logger;
  providers: ProviderRegistry;
  /** Only this method of the metrics: routing is below them, so it names what it calls rather than importing their type. */
  metrics: { observeUpstreamFailure(provider: string, code: string, retried: boolean): void };
}

export interface CandidateAttempt {
  /** 0 for the first candidate. */
  index: number;
  /**
   * Takes over the breaker report for a result that outlives the attempt (a stream: its meter
   * reports success or failure when it ends and must call `end()`). Without it, the loop reports
   * success when the attempt returns.
   */
  keepHealth(): HealthAttempt;
}

/**
 * The one loop that tries candidates, for text, media and video. Each failure is classified once
 * (`classify-failure.ts`): a retryable provider failure moves on to the next endpoint or
 * fallback model; a client abort, a request error or a final provider failure ends the request.
 * Only provider failures feed the breaker, and every health attempt (a half-open probe
 * included) is ended in a `finally`. `attempt` owns its reservation: it settles on success and
 * releases before it rethrows.
 */
export async function tryCandidates<T>(
  context: CandidateLoopDependencies,
  candidates: Candidate[],
  signal: CancelSignal,
  attempt: (candidate: Candidate, control: CandidateAttempt) => Promise<T>,
): Promise<{ candidate: Candidate; value: T }> {
  let lastFailure: UpstreamError | undefined;
  for (let index = 0; index < candidates.length; index += 1) {
    const candidate = candidates[index];
    if (signal.aborted) break;
    const startedAt = performance.now();
    const health = context.health.begin(candidate.healthKey);
    let kept = false;
    try {
      const value = await attempt(candidate, {
        index,
        keepHealth: () => {
          kept = true;
          return health;
        },
      });
      if (!kept) health.succeeded(performance.now() - startedAt);
      return { candidate, value };
    } catch (error) {
      const kind = classifyFailure(error, signal);
      if (kind === 'client_abort') throw error instanceof UpstreamError && error.code === 'aborted' ? error : createAbortedError('client', error);
      if (kind === 'request_error') throw error instanceof UpstreamError ? toClientError(error) : error;
      const upstream = error as UpstreamError;
      // A full line for the provider's connections is our own bound, not a failure of the
      // provider: its breaker is left alone, and the line warns once per episode itself.
      if (upstream.code !== 'service_unavailable') {
        health.failed();
        logUpstreamFailure(context.logger, candidate, upstream);
      }
      context.metrics.observeUpstreamFailure(candidate.provider.id, upstream.code, kind !== 'final' && index < candidates.length - 1);
      if (kind === 'final') throw toClientError(upstream);
      lastFailure = upstream;
    } finally {
      if (!kept) health.end();
    }
  }
  if (signal.aborted) throw createAbortedError('client');
  throw lastFailure ? toClientError(lastFailure, candidates.length) : new GatewayError('no_available_provider', 'No provider could serve the request');
}

/** The call context of one candidate. */
export function callContextOf(context: Pick<CandidateLoopDependencies, 'providers'>, candidate: Candidate, signal: CancelSignal) {
  return { provider: candidate.provider, providerModel: candidate.endpoint.model, signal, dispatcher: context.providers.dispatcher(candidate.provider) };
}
