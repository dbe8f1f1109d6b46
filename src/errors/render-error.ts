import { clientErrorType, type ErrorStyle } from './client-error-type.js';
import type { GatewayError } from './gateway-error.js';
import { renderGoogleError } from './render-google-error.js';

export type { ErrorStyle } from './client-error-type.js';

export function renderError(error: GatewayError, requestId: string, style: ErrorStyle): Record<string, unknown> {
  const body = {
    code: error.code,
    message: error.message,
    status: error.status,
    metadata: { ...error.metadata, request_id: requestId },
  };
  if (style === 'gemini') return renderGoogleError(error.code, error.message, error.status, body.metadata);
  if (style === 'anthropic') {
    return { type: 'error', error: { ...body, type: clientErrorType('anthropic', error.status, error.code) }, request_id: requestId };
  }
  return { error: { ...body, type: clientErrorType('openai', error.status, error.code), param: error.param ?? null } };
}
