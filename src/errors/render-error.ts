import type { GatewayError } from './gateway-error.js';

/**
 * Which client library the endpoint serves. The spec's envelope is always present; each style
 * adds the fields its official SDK reads, so that SDKs raise their usual exception classes.
 */
export type ErrorStyle = 'openai' | 'anthropic';

const openaiTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

const anthropicTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

export function renderError(error: GatewayError, requestId: string, style: ErrorStyle): Record<string, unknown> {
  const body = {
    code: error.code,
    message: error.message,
    status: error.status,
    metadata: { ...error.metadata, request_id: requestId },
  };
  if (style === 'anthropic') {
    return { type: 'error', error: { ...body, type: anthropicTypes[error.status] ?? 'api_error' }, request_id: requestId };
  }
  return { error: { ...body, type: openaiTypes[error.status] ?? 'server_error', param: error.param ?? null } };
}
