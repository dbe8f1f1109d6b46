import { GatewayError } from './gateway-error.js';
import type { UpstreamError } from './upstream-error.js';

/**
 * The one mapping from a provider failure to what the client sees, whether the candidate loop
 * maps it or it reaches the error handler raw. A provider's 400/422 is the client's request
 * (passed on as invalid_request with the provider's message); its 401/403/404 are our
 * configuration's fault (502, without the provider's text); timeouts are 504; anything else,
 * after every candidate, is 502.
 */
export function toClientError(error: UpstreamError, attempts = 1): GatewayError {
  const tried = attempts > 1 ? ` (after trying ${attempts} providers)` : '';
  // Our own signal ended the call: the client has gone and reads no answer, and the provider
  // did not fail; the cause keeps it on the request's log line.
  if (error.code === 'aborted') return new GatewayError('upstream_error', error.message, { cause: error });
  if (error.status === 400 || error.status === 422) return new GatewayError('invalid_request', error.message, { cause: error });
  if (error.status === 413) return new GatewayError('payload_too_large', error.message, { cause: error });
  // No call was made (the gateway's line for the provider's connections was full): a refusal,
  // so without the upstream cause, which would log the request as a provider failure.
  if (error.code === 'service_unavailable') {
    return new GatewayError('service_unavailable', `Every connection the gateway may open to the provider is in use, and the line for a free one is full or took too long${tried}: retry shortly`, {
      headers: { 'retry-after': '1' },
    });
  }
  if (error.code === 'upstream_timeout') return new GatewayError('upstream_timeout', `The provider did not answer in time${tried}`, { cause: error });
  if (error.status === 429) {
    return new GatewayError('rate_limited', `The provider is rate limiting requests${tried}`, {
      cause: error,
      metadata: { limit_type: 'upstream' },
      headers: error.retryAfterSeconds !== undefined ? { 'retry-after': String(Math.ceil(error.retryAfterSeconds)) } : {},
    });
  }
  // 401/403/404 mean our configuration is wrong (the operator's provider key, a model id the
  // provider does not know): logged for the operator with the provider's text, never shown.
  if (error.status === 401 || error.status === 403 || error.status === 404) {
    return new GatewayError('upstream_error', `The provider refused the gateway's configuration for this model${tried}; the operator has been notified. Try another model or provider.`, { cause: error });
  }
  return new GatewayError('upstream_error', `The provider failed${tried}: ${error.message}`, { cause: error });
}
