import type { FastifyBaseLogger } from 'fastify';
import type { GatewayError } from '../errors/gateway-error.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { describeUpstreamFailure } from '../routing/log-upstream-failure.js';

/**
 * Only a fault of ours pages the operator: `internal_error` at error level with its stack (the
 * child logger carries the request id). Refusals the gateway means to give (a misspelt model's
 * 503, provider failures already logged by the candidate loop) are info lines without stack, and
 * client mistakes debug lines; their messages may quote the client's input, so only debug has them.
 * HTTP requests and WebSocket messages are logged alike (`what` names the unit: request, response).
 */
export function logFailure(log: FastifyBaseLogger, error: unknown, gatewayError: GatewayError, what = 'request', bindings: Record<string, unknown> = {}): void {
  if (gatewayError.code === 'internal_error') log.error({ ...bindings, err: error, code: gatewayError.code }, `${what} failed`);
  else if (gatewayError.status >= 500) {
    // A provider failure behind the answer (502, 504) is named on the request's own line, so the
    // client's request id leads to the provider, its status and the transport error.
    const upstream = gatewayError.cause instanceof UpstreamError ? { upstream: describeUpstreamFailure(gatewayError.cause) } : {};
    log.info({ ...bindings, code: gatewayError.code, status: gatewayError.status, ...upstream }, `${what} refused`);
  } else log.debug({ ...bindings, code: gatewayError.code, message: gatewayError.message }, `${what} refused`);
}
