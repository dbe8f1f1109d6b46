import { UpstreamError } from '../../errors/upstream-error.js';

/**
 * A 2xx answer the gateway cannot use (not JSON, a stream cut short or broken by the provider).
 * Reported as 502, the status a gateway gives a bad upstream answer, so that routing may try
 * again: another attempt may well succeed.
 */
export function createProtocolError(providerId: string, problem: string, raw = ''): UpstreamError {
  return new UpstreamError({ provider: providerId, status: 502, message: `${providerId} ${problem}`, body: raw });
}
