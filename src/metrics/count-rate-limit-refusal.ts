import { GatewayError } from '../errors/gateway-error.js';
import type { Metrics } from './metrics.js';

/**
 * Counts a 429 `rate_limited` refusal by its limit type, whichever way it reached the client: an
 * HTTP answer (the `onError` hook) or a Responses WebSocket `error` message, which no HTTP hook sees.
 */
export function countRateLimitRefusal(metrics: Metrics, error: unknown): void {
  if (error instanceof GatewayError && error.code === 'rate_limited') metrics.observeRateLimited(String(error.metadata.limit_type ?? 'requests_per_minute'));
}
