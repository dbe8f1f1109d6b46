import type { Logger } from 'pino';
import type { UpstreamError } from '../errors/upstream-error.js';
import type { Candidate } from '../catalog/candidate.js';

/**
 * A provider failure, for the operator. Auth and configuration failures (401, 403, 404) are the
 * operator's to fix (a bad provider key, a wrong model id), so they are logged at error level
 * with the provider's own text; transient failures (5xx, 429, timeouts, connection failures) are
 * warnings, with the text and, when no answer came (status 0), the transport error beneath it
 * (`ECONNRESET`, `UND_ERR_SOCKET` …), so that each one can be traced.
 */
export function logUpstreamFailure(logger: Pick<Logger, 'warn' | 'error'>, candidate: Candidate, error: UpstreamError): void {
  const fields = { model: candidate.endpoint.model, ...describeUpstreamFailure(error) };
  if (error.status === 401 || error.status === 403) {
    logger.error(fields, `provider ${candidate.provider.id} refused our credentials: check its api_key in the config`);
  } else if (error.status === 404) {
    logger.error(fields, `provider ${candidate.provider.id} does not know model ${candidate.endpoint.model}: check the catalog`);
  } else {
    logger.warn(fields, 'upstream failed');
  }
}

/** The log fields of an upstream failure: who, what status, its text, and the transport cause. */
export function describeUpstreamFailure(error: UpstreamError): Record<string, unknown> {
  return {
    provider: error.provider,
    status: error.status,
    code: error.code,
    retryable: error.retryable,
    detail: error.message,
    ...(error.cause === undefined ? {} : { cause: describeCause(error.cause) }),
  };
}

/** An error's message and code, and those of its own cause (undici wraps socket errors once). */
function describeCause(cause: unknown, depth = 0): unknown {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  const inner = depth < 2 && cause.cause !== undefined ? { cause: describeCause(cause.cause, depth + 1) } : {};
  return { name: cause.name, message: cause.message, ...(typeof code === 'string' ? { code } : {}), ...inner };
}
