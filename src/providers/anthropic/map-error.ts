import { UpstreamError } from '../../errors/upstream-error.js';
import type { AnthropicErrorObject } from '../../wire/anthropic/wire-types.js';

/** The HTTP status each error type stands for: https://platform.claude.com/docs/en/api/errors */
export const statusOfAnthropicErrorType: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * An in-band `error` event (e.g. `overloaded_error` after a 200 response) → `UpstreamError`, with
 * the status its type stands for, so that retryability follows it as for an error status.
 * https://platform.claude.com/docs/en/build-with-claude/streaming#error-events
 */
export function mapAnthropicStreamError(providerId: string, error: AnthropicErrorObject | undefined, body = ''): UpstreamError {
  const type = error?.type ?? 'unknown_error';
  return new UpstreamError({
    provider: providerId,
    status: statusOfAnthropicErrorType[type] ?? 500,
    code: type === 'timeout_error' ? 'upstream_timeout' : undefined,
    message: `${providerId} stream error (${type}): ${error?.message ?? 'no error message'}`,
    body,
  });
}
