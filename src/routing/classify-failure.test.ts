import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { classifyFailure } from './classify-failure.js';

const live = new AbortController().signal;
const upstream = (status: number, retryable: boolean, code?: 'aborted' | 'upstream_timeout') => new UpstreamError({ provider: 'p', status, retryable, code, message: 'x' });

describe('classifyFailure', () => {
  it('tells a client abort from provider failures, whatever error the abort surfaced as', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(classifyFailure(upstream(502, true), aborted.signal)).toBe('client_abort');
    expect(classifyFailure(upstream(0, false, 'aborted'), live)).toBe('client_abort');
  });

  it("keeps our refusals and a provider's 400/413/422 away from the breaker", () => {
    expect(classifyFailure(new GatewayError('insufficient_balance', 'x'), live)).toBe('request_error');
    expect(classifyFailure(new Error('bug'), live)).toBe('request_error');
    for (const status of [400, 413, 422]) expect(classifyFailure(upstream(status, false), live)).toBe('request_error');
  });

  it('fails over on retryable provider failures and stops on final ones', () => {
    expect(classifyFailure(upstream(503, true), live)).toBe('retryable');
    expect(classifyFailure(upstream(0, true, 'upstream_timeout'), live)).toBe('retryable');
    expect(classifyFailure(upstream(401, false), live)).toBe('final');
  });
});
