import { describe, expect, it } from 'vitest';
import { UpstreamError, toStreamError } from './upstream-error.js';

const failure = (status: number, code?: UpstreamError['code']) => new UpstreamError({ provider: 'acme', status, code, message: 'failed' });

describe('UpstreamError', () => {
  it('says rate_limited for a 429 and upstream_error for any other status, unless told a code', () => {
    expect(failure(429).code).toBe('rate_limited');
    expect(failure(503).code).toBe('upstream_error');
    expect(failure(0).code).toBe('upstream_error');
    expect(failure(0, 'upstream_timeout').code).toBe('upstream_timeout');
  });

  it('is retryable for 0, 408, 409, 429 and 5xx only', () => {
    expect([0, 408, 409, 429, 500, 529].map((status) => failure(status).retryable)).toEqual([true, true, true, true, true, true]);
    expect([400, 401, 403, 404, 422].map((status) => failure(status).retryable)).toEqual([false, false, false, false, false]);
  });
});

describe('toStreamError', () => {
  it('gives 504 for upstream_timeout, 429 for rate_limited and 502 for the rest', () => {
    expect(toStreamError(failure(0, 'upstream_timeout'))).toEqual({ message: 'failed', code: 'upstream_timeout', status: 504 });
    expect(toStreamError(failure(429))).toEqual({ message: 'failed', code: 'rate_limited', status: 429 });
    expect(toStreamError(failure(503))).toEqual({ message: 'failed', code: 'upstream_error', status: 502 });
    expect(toStreamError(failure(0, 'aborted'))).toEqual({ message: 'failed', code: 'aborted', status: 502 });
  });
});
