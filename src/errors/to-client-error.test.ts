import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../http/register-error-handling.js';
import { toClientError } from './to-client-error.js';
import { UpstreamError } from './upstream-error.js';

/**
 * A provider failure used to be answered two ways: the candidate loop's mapping (this one) and a
 * cruder branch of the error handler's `toGatewayError`, which every raw `UpstreamError` reached
 * (a video's content download, a concurrent idempotent submission, an aborted call). Each case
 * below is one where the two disagreed; the error handler must now answer as the loop does.
 */
const failures: Array<{ name: string; error: UpstreamError; status: number; code: string; headers?: Record<string, string>; metadata?: Record<string, unknown> }> = [
  { name: "a provider's 400 is the client's request", error: new UpstreamError({ provider: 'acme', status: 400, message: "'temperature' must be at most 2" }), status: 400, code: 'invalid_request' },
  { name: "a provider's 422 is the client's request", error: new UpstreamError({ provider: 'acme', status: 422, message: 'prompt is empty' }), status: 400, code: 'invalid_request' },
  { name: "a provider's 413 is a payload too large", error: new UpstreamError({ provider: 'acme', status: 413, message: 'request too large' }), status: 413, code: 'payload_too_large' },
  {
    name: "a full line for the provider's connections is a 503 to retry shortly",
    error: new UpstreamError({ provider: 'acme', status: 0, code: 'service_unavailable', message: 'line full' }),
    status: 503,
    code: 'service_unavailable',
    headers: { 'retry-after': '1' },
  },
  {
    name: "a provider's 429 carries its Retry-After and the upstream limit type",
    error: new UpstreamError({ provider: 'acme', status: 429, message: 'slow down, org org-secret', retryAfterSeconds: 2.5 }),
    status: 429,
    code: 'rate_limited',
    headers: { 'retry-after': '3' },
    metadata: { limit_type: 'upstream' },
  },
  { name: 'a timeout is a 504', error: new UpstreamError({ provider: 'acme', status: 0, code: 'upstream_timeout', message: 'acme: no first byte within 1000 ms' }), status: 504, code: 'upstream_timeout' },
  { name: "a provider's 401 is our configuration's fault", error: new UpstreamError({ provider: 'acme', status: 401, message: 'Incorrect API key provided: sk-org-secret' }), status: 502, code: 'upstream_error' },
  { name: "a provider's 404 is our configuration's fault", error: new UpstreamError({ provider: 'acme', status: 404, message: 'model org-secret-tune not found' }), status: 502, code: 'upstream_error' },
  { name: "a provider's 5xx says the provider failed", error: new UpstreamError({ provider: 'acme', status: 503, message: 'acme answered 503' }), status: 502, code: 'upstream_error' },
];

describe('one mapping from a provider failure to the client', () => {
  const app = Fastify();
  const thrown = new Map<string, UpstreamError>();
  beforeAll(async () => {
    registerErrorHandling(app);
    app.get('/fail/:index', async (request) => {
      throw thrown.get((request.params as { index: string }).index);
    });
    await app.ready();
  });
  afterAll(async () => app.close());

  for (const [index, failure] of failures.entries()) {
    it(`answers a raw UpstreamError as the candidate loop does: ${failure.name}`, async () => {
      thrown.set(String(index), failure.error);
      const response = await app.inject({ method: 'GET', url: `/fail/${index}` });
      const expected = toClientError(failure.error);
      const body = response.json() as { error: { code: string; message: string; status: number; metadata: Record<string, unknown> } };
      expect(response.statusCode).toBe(failure.status);
      expect(body.error).toMatchObject({ code: failure.code, status: failure.status, message: expected.message, metadata: failure.metadata ?? {} });
      for (const [name, value] of Object.entries(failure.headers ?? {})) expect(response.headers[name]).toBe(value);
      // What the provider said about the gateway's own configuration or account stays in the log.
      if (failure.status >= 429) expect(body.error.message).not.toContain('org-secret');
    });
  }
});
