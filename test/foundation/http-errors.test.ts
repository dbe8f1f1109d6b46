import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/errors/error-codes.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { renderError } from '../../src/errors/render-error.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

function expectEnvelope(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, code: string, status: number) {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(body.error).toMatchObject({ code, status });
  expect(typeof body.error.message).toBe('string');
  expect(body.error.metadata.request_id).toBe(response.headers['x-request-id']);
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

describe('HTTP edge: error envelope on every failure', () => {
  let test: TestApp;
  let key: string;
  beforeAll(async () => {
    const config = buildTestConfig();
    config.server.bodyLimitBytes = 2048;
    test = await startTestApp({ config });
    key = (await test.createAccount({ credits: 1 })).key;
  });
  afterAll(async () => test?.close());
  const auth = () => ({ authorization: `Bearer ${key}` });

  it('puts x-request-id on successful responses too, each unique', async () => {
    const first = await test.app.inject({ method: 'GET', url: '/health' });
    const second = await test.app.inject({ method: 'GET', url: '/health' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('answers an unknown route with 404 not_found', async () => {
    expectEnvelope(await test.app.inject({ method: 'GET', url: '/v1/nothing-here' }), 'not_found', 404);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const response = await test.app.inject({ method: 'PUT', url: '/v1/keys', headers: auth() });
    expectEnvelope(response, 'method_not_allowed', 405);
    expect(response.headers.allow).toContain('GET');
    expect(response.headers.allow).toContain('POST');
  });

  it('answers invalid JSON with 400 invalid_request', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/json' }, payload: '{"name": ' });
    expectEnvelope(response, 'invalid_request', 400);
    expect(response.json().error.message).toContain('JSON');
    expect(response.json().error.type).toBe('invalid_request_error');
  });

  it('answers a body that is not an object with 400 invalid_request', async () => {
    for (const payload of ['[1,2]', '"text"', '42', 'null']) {
      const response = await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/json' }, payload });
      expectEnvelope(response, 'invalid_request', 400);
    }
  });

  it('answers an empty JSON body or plain text with 400, and an unknown content type with 415', async () => {
    expectEnvelope(await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/json' }, payload: '' }), 'invalid_request', 400);
    const text = await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'text/plain' }, payload: 'hello' });
    expectEnvelope(text, 'invalid_request', 400);
    expect(text.json().error.message).toBe('Request body must be a JSON object');
    expectEnvelope(await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/xml' }, payload: '<a/>' }), 'unsupported_media_type', 415);
  });

  it('answers a body over the size limit with 413 payload_too_large', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(4096) });
    expectEnvelope(await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/json' }, payload }), 'payload_too_large', 413);
  });

  it('names the field on a validation failure', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/v1/keys', headers: auth(), payload: { name: 5 } });
    expectEnvelope(response, 'invalid_request', 400);
    expect(response.json().error.message).toContain("'name'");
    expect(response.json().error.param).toBe('name');
  });

  it('checks the key before reading the body', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/v1/keys', headers: { 'content-type': 'application/json' }, payload: '{broken' });
    expectEnvelope(response, 'invalid_api_key', 401);
  });

  it('keeps serving after a burst of bad input', async () => {
    const bad = ['{', '{"a":', '\u0000', '[]', '{"name":{"$gt":1}}'];
    await Promise.all(bad.map((payload) => test.app.inject({ method: 'POST', url: '/v1/keys', headers: { ...auth(), 'content-type': 'application/json' }, payload })));
    expect((await test.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('reports readiness from the store', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });
});

describe('error rendering', () => {
  it('has a status for every code and renders both styles with the spec envelope', () => {
    for (const [code, status] of Object.entries(errorCodes)) {
      const error = new GatewayError(code as keyof typeof errorCodes, 'message', { metadata: { limit_type: 'x' } });
      expect(error.status).toBe(status);
      const openai = renderError(error, 'req_1', 'openai') as any;
      expect(openai.error).toMatchObject({ code, status, message: 'message', metadata: { request_id: 'req_1', limit_type: 'x' } });
      expect(typeof openai.error.type).toBe('string');
      const anthropic = renderError(error, 'req_1', 'anthropic') as any;
      expect(anthropic.type).toBe('error');
      expect(anthropic.error).toMatchObject({ code, status, metadata: { request_id: 'req_1' } });
      expect(typeof anthropic.error.type).toBe('string');
    }
  });

  it('uses the SDKs\' error types for the common statuses', () => {
    expect((renderError(new GatewayError('invalid_api_key', 'x'), 'r', 'anthropic') as any).error.type).toBe('authentication_error');
    expect((renderError(new GatewayError('rate_limited', 'x'), 'r', 'anthropic') as any).error.type).toBe('rate_limit_error');
    expect((renderError(new GatewayError('invalid_request', 'x', { param: 'model' }), 'r', 'openai') as any).error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
  });
});
