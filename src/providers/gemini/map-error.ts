import { UpstreamError } from '../../errors/upstream-error.js';
import type { GeminiErrorBody } from './gemini-wire-types.js';

/**
 * Turns Gemini's error object (`{code, message, status}`), which can also arrive in-band as a
 * stream chunk after a 200, into an `UpstreamError`. `code` is the HTTP status Gemini would
 * have answered with, so retryability follows it (429 and 5xx retry, 400 does not).
 */
export function mapError(providerId: string, error: GeminiErrorBody, body = ''): UpstreamError {
  const status = typeof error.code === 'number' && error.code >= 400 ? error.code : 500;
  const detail = [error.status, error.message].filter((text) => typeof text === 'string' && text).join(': ');
  return new UpstreamError({
    provider: providerId,
    status,
    message: `${providerId} failed mid-response: ${detail || 'no error message'}`,
    body,
  });
}

/**
 * Gemini answers a bad API key with 400 INVALID_ARGUMENT (reason `API_KEY_INVALID`), where
 * OpenAI and Anthropic answer 401. Said as 401, routing and health see one auth failure for
 * every provider instead of a client mistake. Anything else passes through unchanged.
 * https://ai.google.dev/gemini-api/docs/troubleshooting
 */
export function mapHttpError(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.status === 400 && readDetails(error.body).some((detail) => detail?.reason === 'API_KEY_INVALID')) {
    return new UpstreamError({ provider: error.provider, status: 401, message: error.message, body: error.body, cause: error });
  }
  if (error.status === 429 && error.retryAfterSeconds === undefined) {
    const retryAfterSeconds = readRetryDelay(error.body);
    if (retryAfterSeconds !== undefined) {
      return new UpstreamError({ provider: error.provider, status: 429, message: error.message, body: error.body, retryAfterSeconds, cause: error });
    }
  }
  return error;
}

/**
 * Gemini sends no Retry-After header on a 429; it says when to retry in a `google.rpc.RetryInfo`
 * detail, as a protobuf Duration string such as "34.4s".
 * https://ai.google.dev/gemini-api/docs/rate-limits and https://cloud.google.com/apis/design/errors#retryinfo
 */
function readRetryDelay(body: string): number | undefined {
  for (const detail of readDetails(body)) {
    const delay = detail?.retryDelay;
    if (typeof delay !== 'string' || !delay.endsWith('s')) continue;
    const seconds = Number(delay.slice(0, -1));
    if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  }
  return undefined;
}

function readDetails(body: string): Array<{ reason?: unknown; retryDelay?: unknown } | null | undefined> {
  try {
    const details = (JSON.parse(body) as { error?: { details?: unknown } }).error?.details;
    return Array.isArray(details) ? details : [];
  } catch {
    return [];
  }
}
