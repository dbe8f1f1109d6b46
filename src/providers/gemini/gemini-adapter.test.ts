import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import type { CallContext } from '../provider-adapter.js';
import { collect } from '../shared/__fixtures__/collect.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { createProviderDispatcher } from '../shared/send-request.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { geminiAdapter } from './gemini-adapter.js';
import { readFixture } from './__fixtures__/read-fixture.js';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

let server: Server;
let handle: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void;
let seen: Seen[] = [];
let dispatcher: Dispatcher;
let provider: ProviderConfig;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const entry = { url: request.url ?? '', headers: request.headers, body: JSON.parse(text) as Record<string, unknown> };
    seen.push(entry);
    handle(request, response, entry);
  });
  const baseUrl = await listenLocally(server);
  provider = {
    id: 'google', name: 'Google', api: 'gemini', baseUrl: `${baseUrl}/v1beta/`, auth: { kind: 'api-key-header', header: 'x-goog-api-key', key: 'test-key' }, enabled: true,
    headers: { 'x-extra': 'yes' }, timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  };
  dispatcher = createProviderDispatcher(provider);
});

afterEach(() => {
  seen = [];
});

afterAll(async () => {
  await dispatcher.close();
  await closeServer(server);
});

function context(overrides: Partial<CallContext> = {}): CallContext {
  return { provider, providerModel: 'gemini-2.5-flash', signal: new AbortController().signal, dispatcher, ...overrides };
}

const request: TextRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], maxTokens: 64, stream: false };

function reply(status: number, body: string, type = 'application/json') {
  handle = (_request, response) => {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  };
}

describe('geminiAdapter', () => {
  it('posts generateContent with the API key header and decodes the answer', async () => {
    reply(200, readFixture('text.json'));
    const result = await geminiAdapter.generate(request, context());
    expect(seen[0].url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(seen[0].headers).toMatchObject({ 'x-goog-api-key': 'test-key', 'x-extra': 'yes', 'content-type': 'application/json' });
    expect(seen[0].body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 64 } });
    expect(result).toMatchObject({ finishReason: 'stop', providerModel: 'gemini-2.5-flash', usage: { promptTokens: 2071 } });
  });

  it('rejects with a retryable UpstreamError carrying Gemini\'s message on an error status', async () => {
    reply(429, JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }));
    const failure = await geminiAdapter.generate(request, context()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 429, retryable: true, message: expect.stringContaining('Resource has been exhausted') });
  });

  it('reports Gemini\'s 400 for a bad API key as 401, like the other providers', async () => {
    reply(400, JSON.stringify({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } }));
    await expect(geminiAdapter.generate(request, context())).rejects.toMatchObject({ status: 401, retryable: false });
  });

  it('rejects a 200 whose body is not JSON, as retryable', async () => {
    reply(200, '<html>proxy error</html>', 'text/html');
    await expect(geminiAdapter.generate(request, context())).rejects.toMatchObject({ retryable: true, message: expect.stringContaining('not a JSON object') });
  });

  it('streams from streamGenerateContent?alt=sse and ends with one finish', async () => {
    reply(200, readFixture('stream-text.sse'), 'text/event-stream');
    const parts = await collect(await geminiAdapter.stream({ ...request, stream: true }, context()));
    expect(seen[0].url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(parts[0]).toMatchObject({ type: 'start', providerResponseId: 'vQRpaqzAPN2M9MoPxPq2uQ4' });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('rejects (so routing can fail over) when the stream fails before its first part', async () => {
    reply(200, 'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n', 'text/event-stream');
    const failure = await geminiAdapter.stream({ ...request, stream: true }, context()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ status: 503, retryable: true });
  });

  it('rejects with a timeout when no event arrives within the first-byte budget', async () => {
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
    };
    const hasty = { ...provider, timeouts: { ...provider.timeouts, firstByteMs: 200, idleMs: 60_000 } };
    const startedAt = Date.now();
    const failure = await geminiAdapter.stream({ ...request, stream: true }, context({ provider: hasty })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ code: 'upstream_timeout', retryable: true });
    expect(Date.now() - startedAt).toBeLessThan(2000);
  });

  it('signs replayed function calls for Gemini 3 models only', async () => {
    reply(200, readFixture('text.json'));
    const withCall: TextRequest = { ...request, messages: [
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'get_weather', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c', content: [{ type: 'text', text: 'sunny' }] },
    ] };
    await geminiAdapter.generate(withCall, context({ providerModel: 'gemini-3-pro-preview' }));
    await geminiAdapter.generate(withCall, context());
    const signatureSent = (body: Record<string, unknown>) => (body.contents as Array<{ parts: Array<{ thoughtSignature?: string }> }>)[1].parts[0].thoughtSignature;
    expect(signatureSent(seen[0].body)).toBe('skip_thought_signature_validator');
    expect(signatureSent(seen[1].body)).toBeUndefined();
  });
});
