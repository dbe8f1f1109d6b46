import { errorCatalog, type ErrorCode } from './error-codes.js';

/**
 * Which client library the endpoint serves. The spec's envelope is always present; each style
 * adds the `type` its official SDK reads, so that SDKs raise their usual exception classes.
 */
export type ErrorStyle = 'openai' | 'anthropic' | 'gemini';

/** The styles whose SDKs read an `error.type` (Gemini's reads the HTTP status and Google's `status` name). */
type TypedErrorStyle = Exclude<ErrorStyle, 'gemini'>;

/**
 * The one status → `error.type` table per style, used by the JSON error bodies and by the stream
 * encoders alike, so an error reads the same whether it came before or during a stream.
 * https://platform.openai.com/docs/guides/error-codes · https://docs.anthropic.com/en/api/errors
 */
const typesByStatus: Record<TypedErrorStyle, Record<number, string>> = {
  openai: {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'insufficient_quota',
    403: 'permission_error',
    404: 'not_found_error',
    405: 'invalid_request_error',
    408: 'invalid_request_error',
    413: 'invalid_request_error',
    414: 'invalid_request_error',
    415: 'invalid_request_error',
    417: 'invalid_request_error',
    429: 'rate_limit_error',
    431: 'invalid_request_error',
  },
  anthropic: {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    405: 'invalid_request_error',
    408: 'invalid_request_error',
    413: 'request_too_large',
    414: 'invalid_request_error',
    415: 'invalid_request_error',
    417: 'invalid_request_error',
    429: 'rate_limit_error',
    431: 'invalid_request_error',
    503: 'overloaded_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  },
};

/**
 * A code whose answer a retry cannot change takes the client-mistake type of its style, not the
 * status's: a misspelt model is a 503 by the spec, but Anthropic clients retry `overloaded_error`.
 */
const clientMistakeType: Record<TypedErrorStyle, string> = { openai: 'invalid_request_error', anthropic: 'invalid_request_error' };

export function clientErrorType(style: TypedErrorStyle, status: number, code?: string): string {
  const entry = code !== undefined ? (errorCatalog as Record<string, { retry?: false }>)[code] : undefined;
  if (entry?.retry === false) return clientMistakeType[style];
  const type = typesByStatus[style][status];
  if (type) return type;
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return style === 'openai' ? 'server_error' : 'api_error';
}

/** Whether a client library should retry this code (sent as `x-should-retry: false` when not). */
export function shouldRetry(code: ErrorCode): boolean {
  return (errorCatalog[code] as { retry?: false }).retry !== false;
}
