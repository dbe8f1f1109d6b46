import { describe, expect, it } from 'vitest';
import { toStreamError } from '../../errors/upstream-error.js';
import { mapAnthropicStreamError } from './map-error.js';

describe('mapAnthropicStreamError', () => {
  it('names the provider and the Anthropic error type in an upstream_error', () => {
    expect(toStreamError(mapAnthropicStreamError('anthropic', { type: 'overloaded_error', message: 'Overloaded' }))).toEqual({
      message: 'anthropic stream error (overloaded_error): Overloaded',
      code: 'upstream_error',
      status: 502,
    });
  });

  it('maps timeout_error onto the upstream_timeout code, as toStreamError does for transport timeouts', () => {
    expect(toStreamError(mapAnthropicStreamError('anthropic', { type: 'timeout_error', message: 'Request timed out' }))).toMatchObject({
      code: 'upstream_timeout',
      status: 504,
    });
  });

  it('gives the error the status its type stands for, so that retryability follows it', () => {
    expect(mapAnthropicStreamError('anthropic', { type: 'overloaded_error' })).toMatchObject({ status: 529, retryable: true });
    expect(mapAnthropicStreamError('anthropic', { type: 'rate_limit_error' })).toMatchObject({ status: 429, code: 'rate_limited', retryable: true });
    expect(mapAnthropicStreamError('anthropic', { type: 'invalid_request_error' })).toMatchObject({ status: 400, retryable: false });
    expect(mapAnthropicStreamError('anthropic', { type: 'some_new_error' })).toMatchObject({ status: 500, retryable: true });
  });

  it('still produces a message when the event carries no error object', () => {
    expect(mapAnthropicStreamError('claude-direct', undefined).message).toBe('claude-direct stream error (unknown_error): no error message');
  });
});
