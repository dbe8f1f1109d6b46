import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors/upstream-error.js';
import { mapError, mapHttpError } from './map-error.js';

describe('mapError', () => {
  it('keeps the status Gemini reports in-band, so retryability follows it', () => {
    const overloaded = mapError('google', { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' });
    expect(overloaded).toMatchObject({ status: 503, retryable: true, code: 'upstream_error', message: expect.stringContaining('UNAVAILABLE: The model is overloaded.') });
    expect(mapError('google', { code: 400, message: 'Bad schema', status: 'INVALID_ARGUMENT' })).toMatchObject({ status: 400, retryable: false });
    expect(mapError('google', {})).toMatchObject({ status: 500, retryable: true, message: expect.stringContaining('no error message') });
  });
});

describe('mapHttpError', () => {
  const invalidKeyBody = JSON.stringify({
    error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] },
  });

  it('says 401 for Gemini\'s 400 API_KEY_INVALID', () => {
    const mapped = mapHttpError(new UpstreamError({ provider: 'google', status: 400, message: 'google answered 400: API key not valid.', body: invalidKeyBody }));
    expect(mapped).toBeInstanceOf(UpstreamError);
    expect(mapped).toMatchObject({ status: 401, message: 'google answered 400: API key not valid.', body: invalidKeyBody });
  });

  it('passes every other failure through unchanged', () => {
    const badRequest = new UpstreamError({ provider: 'google', status: 400, message: 'x', body: '{"error":{"code":400,"message":"Invalid JSON payload"}}' });
    const notJson = new UpstreamError({ provider: 'google', status: 400, message: 'x', body: 'Bad Request' });
    const other = new Error('boom');
    for (const error of [badRequest, notJson, other]) expect(mapHttpError(error)).toBe(error);
  });
});
