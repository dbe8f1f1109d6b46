import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { sendRaw, type RawAnswer } from '../edge/raw-http.js';

/**
 * Which refusals answer in Google's error shape (issue 45 item 8, issue 46 item 7): every refusal
 * of a Gemini-style path, however early the gateway refuses it (before routing, before the key,
 * before the body), and none of any other path, even one the Gemini routes' pattern also matches
 * (`POST /v1/models/{anything}`). A Gemini-style path is anything under `/v1beta/models`
 * (Google's models API) and a `POST /v1/models/{model}:{method}` call; the rest of `/v1/models/` is
 * the OpenRouter catalog.
 */
let gateway: SimulatedGateway;
let port: number;
/** Tight limits, to reach the body-size, large-upload and rate-limit refusals with small bodies. */
let tight: SimulatedGateway;
let tightPort: number;

const bodyLimitBytes = 1000;
const largeUploadBytes = 2000;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ credits: 100 });
  port = Number(new URL(gateway.url).port);
  tight = await startSimulatedGateway({
    credits: 100,
    configure: (config) => {
      config.server.bodyLimitBytes = bodyLimitBytes;
      config.server.http = { largeUploadBytes, maxLargeUploads: 0, headersTimeoutMs: 1_000, requestTimeoutMs: 1_000, timeoutCheckIntervalMs: 200 };
      config.limits.requestsPerMinute = 1;
    },
  });
  tightPort = Number(new URL(tight.url).port);
});
afterAll(async () => {
  await gateway?.close();
  await tight?.close();
});

const hello = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] });
const call = '/v1beta/models/sim/openai-model:generateContent';
const v1Call = '/v1/models/sim/openai-model:generateContent';

interface Answer {
  status: number;
  requestId: string | null;
  body: unknown;
}

async function send(target: SimulatedGateway, method: string, path: string, options: { body?: string; headers?: Record<string, string>; key?: string | null } = {}): Promise<Answer> {
  const key = options.key === undefined ? target.key : options.key;
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...(key === null ? {} : { 'x-goog-api-key': key }), ...options.headers },
    body: options.body,
  });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: await response.json() };
}

/** A request as bytes, for what `fetch` will not send (an undecodable path, a bad Expect, huge headers). */
async function sendBytes(targetPort: number, request: string, options: { timeoutMs?: number } = {}): Promise<Answer> {
  // `Connection: close` after the request line: the answer is read to the end of the connection.
  const lineEnd = request.indexOf('\r\n');
  const answer: RawAnswer = await sendRaw(targetPort, [`${request.slice(0, lineEnd)}\r\nConnection: close${request.slice(lineEnd)}`], options);
  return { status: answer.status ?? 0, requestId: answer.headers['x-request-id'] ?? null, body: JSON.parse(answer.body) };
}

/** Google's `{error: {code, message, status, details: [ErrorInfo]}}`, the envelope's code as the reason. */
function expectGoogleShape(answer: Answer, status: number, reason: string): void {
  expect(answer.status).toBe(status);
  const { error } = answer.body as { error: { code: unknown; status: unknown; message: unknown; metadata: { request_id: unknown }; details: Array<{ reason: unknown; domain: unknown }> } };
  expect(typeof error.code).toBe('number');
  expect(typeof error.status).toBe('string');
  expect(error.status).toMatch(/^[A-Z_]+$/);
  expect(typeof error.message).toBe('string');
  expect(error.details[0]).toMatchObject({ reason, domain: 'switchyard' });
  expect(error.metadata.request_id).toBe(answer.requestId);
}

/** The spec's envelope: `code` the machine code, `status` the HTTP status. */
function expectEnvelope(answer: Answer, status: number, code: string): void {
  expect(answer.status).toBe(status);
  const { error } = answer.body as { error: { code: unknown; status: unknown; message: unknown; metadata: { request_id: unknown } } };
  expect(error).toMatchObject({ code, status });
  expect(typeof error.message).toBe('string');
  expect(error.metadata.request_id).toBe(answer.requestId);
}

describe('Google’s shape on every refusal of a Gemini-style call', () => {
  it.each([
    ['/v1beta/models/%E0%A4%A:generateContent?key=k'],
    ['/v1/models/%E0%A4%A:generateContent?key=k'],
    ['/v1beta/models/sim/openai-model%ZZ:streamGenerateContent'],
  ])('an undecodable path, refused before routing: %s', async (path) => {
    const answer = await sendBytes(port, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expectGoogleShape(answer, 400, 'invalid_request');
    expect((answer.body as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
  });

  it('a NUL in the model id (decodable, so routed)', async () => {
    expectGoogleShape(await send(gateway, 'POST', '/v1beta/models/%00:generateContent', { body: hello }), 400, 'invalid_request');
  });

  it.each([
    ['no key', null, 401, 'invalid_api_key'],
    ['a key that does not exist', 'sy_not-a-key', 401, 'invalid_api_key'],
  ])('%s', async (_name, key, status, reason) => {
    expectGoogleShape(await send(gateway, 'POST', call, { body: hello, key }), status, reason);
    expectGoogleShape(await send(gateway, 'POST', v1Call, { body: hello, key }), status, reason);
  });

  it('a bad ?key=', async () => {
    expectGoogleShape(await send(gateway, 'POST', `${call}?key=sy_wrong`, { body: hello, key: null }), 401, 'invalid_api_key');
  });

  it.each([
    ['JSON that does not parse', '{"contents": [', 400],
    ['a body that is not an object', '[1, 2]', 400],
    ['an empty body', '', 400],
  ])('%s', async (_name, body, status) => {
    const answer = await send(gateway, 'POST', call, { body });
    expect(answer.status).toBe(status);
    expectGoogleShape(answer, status, (answer.body as { error: { details: Array<{ reason: string }> } }).error.details[0].reason);
  });

  it('a body that is not JSON', async () => {
    expectGoogleShape(await send(gateway, 'POST', call, { body: 'hello', headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request');
  });

  it('a call path with a trailing slash, which the router reads as the call', async () => {
    expectGoogleShape(await send(gateway, 'POST', '/v1/models/acme/nothing:generateContent/', { body: hello }), 503, 'no_available_provider');
  });

  it('a model id longer than the router takes', async () => {
    const answer = await send(gateway, 'POST', `/v1beta/models/${'m'.repeat(600)}:generateContent`, { body: hello });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expectGoogleShape(answer, answer.status, (answer.body as { error: { details: Array<{ reason: string }> } }).error.details[0].reason);
  });

  it('a model the gateway has no route for, and a method the style does not have', async () => {
    expectGoogleShape(await send(gateway, 'POST', '/v1beta/models/acme/nothing:generateContent', { body: hello }), 503, 'no_available_provider');
    expectGoogleShape(await send(gateway, 'POST', '/v1/models/sim/openai-model:predict', { body: hello }), 404, 'not_found');
  });

  it('a method other than POST on a call path', async () => {
    const answer = await send(gateway, 'PUT', call, { body: hello });
    expectGoogleShape(answer, 405, 'method_not_allowed');
  });

  it('an account without funds', async () => {
    const poor = await gateway.test.createAccount({ credits: 0 });
    expectGoogleShape(await send(gateway, 'POST', v1Call, { body: hello, key: poor.key }), 402, 'insufficient_balance');
  });

  it('an Expect header the server does not support', async () => {
    const answer = await sendBytes(port, `POST ${call}?key=${gateway.key} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expectGoogleShape(answer, 417, 'expectation_failed');
  });

  it('headers larger than the limit, refused by Node’s parser', async () => {
    const answer = await sendBytes(port, `POST ${call} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`);
    expectGoogleShape(answer, 431, 'headers_too_large');
  });

  it('an HTTP/1.1 request without Host', async () => {
    const answer = await sendBytes(port, `POST ${call}?key=${gateway.key} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    expectGoogleShape(answer, 400, 'invalid_request');
  });

  it('a body over the limit, and a large upload over the cap', async () => {
    expectGoogleShape(await send(tight, 'POST', call, { body: JSON.stringify({ contents: [{ parts: [{ text: 'x'.repeat(1500) }] }] }) }), 413, 'payload_too_large');
    expectGoogleShape(await send(tight, 'POST', call, { body: JSON.stringify({ contents: [{ parts: [{ text: 'x'.repeat(3000) }] }] }) }), 503, 'service_unavailable');
  });

  it('a request whose body does not arrive in time', async () => {
    const answer = await sendBytes(tightPort, `POST ${call}?key=${tight.key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`, { timeoutMs: 15_000 });
    expectGoogleShape(answer, 408, 'request_timeout');
  });

  it('the per-minute rate limit', async () => {
    const { key } = await tight.test.createAccount({ credits: 10 });
    expect((await send(tight, 'POST', call, { body: hello, key })).status).toBe(200);
    const answer = await send(tight, 'POST', call, { body: hello, key });
    expectGoogleShape(answer, 429, 'rate_limited');
    expect((answer.body as { error: { status: string } }).error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('Google’s models API under /v1beta: an unknown model and a bad page size', async () => {
    expectGoogleShape(await send(gateway, 'GET', '/v1beta/models/acme/nothing'), 404, 'not_found');
    expectGoogleShape(await send(gateway, 'GET', '/v1beta/models?pageSize=-1'), 400, 'invalid_request');
    expectGoogleShape(await send(gateway, 'DELETE', '/v1beta/models/sim/openai-model'), 405, 'method_not_allowed');
  });
});

describe('the envelope on every other path under /v1/models/', () => {
  it.each([
    ['POST', `/v1/models/${'a'.repeat(300)}/b/endpoints`, 405, 'method_not_allowed'],
    ['POST', '/v1/models/sim/openai-model/endpoints', 405, 'method_not_allowed'],
    ['POST', '/v1/models/sim/openai-model', 405, 'method_not_allowed'],
    ['POST', '/v1/models/a/b/c/d', 404, 'not_found'],
    ['POST', '/v1/models/a:b/c', 405, 'method_not_allowed'],
    ['POST', '/v1/models/x:generateContent//', 405, 'method_not_allowed'],
    ['POST', '/v1/models/:generateContent', 405, 'method_not_allowed'],
    ['POST', '/v1/models/', 405, 'method_not_allowed'],
    ['GET', '/v1/models/acme/nothing:free', 404, 'not_found'],
    ['GET', '/v1/models/sim/openai-model:generateContent', 404, 'not_found'],
    ['PUT', '/v1/models/sim/openai-model:generateContent', 405, 'method_not_allowed'],
  ])('%s %s', async (method, path, status, code) => {
    const answer = await send(gateway, method, path, { body: method === 'GET' ? undefined : hello });
    expectEnvelope(answer, status, code);
  });

  it('refuses such a path in the envelope without a key too, and an undecodable one before routing', async () => {
    // The key is checked before the path is told apart from a call: 401, in the envelope.
    expectEnvelope(await send(gateway, 'POST', '/v1/models/a/b/endpoints', { body: hello, key: null }), 401, 'invalid_api_key');
    expectEnvelope(await sendBytes(port, `POST /v1/models/%E0%A4%A/endpoints HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`), 400, 'invalid_request');
  });

  it('names the methods the catalog path allows', async () => {
    const response = await fetch(`${gateway.url}/v1/models/a/b/endpoints`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.key }, body: hello });
    expect(response.headers.get('allow')).toBe('GET');
  });
});
