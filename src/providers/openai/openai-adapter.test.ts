import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { CallContext } from '../provider-adapter.js';
import { collect } from '../shared/__fixtures__/collect.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { loadFixture } from './__fixtures__/load-fixture.js';
import { openaiAdapter } from './openai-adapter.js';

interface Received {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Handler = (response: ServerResponse, received: Received) => void;

let server: Server;
let dispatcher: Agent;
let baseUrl: string;
let handler: Handler;
let received: Received[];
/** Resolves when the server sees the client close a response before it ended. */
let clientClosedEarly: Promise<void>;
let markClosedEarly: () => void;

beforeEach(async () => {
  received = [];
  clientClosedEarly = new Promise((resolve) => (markClosedEarly = resolve));
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method, url: request.url, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      received.push(entry);
      response.on('close', () => {
        if (!response.writableFinished) markClosedEarly();
      });
      handler(response, entry);
    });
  });
  baseUrl = `${await listenLocally(server)}/v1`;
  dispatcher = new Agent();
});

afterEach(async () => {
  await closeServer(server);
  await dispatcher.close();
});

function provider(fields: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: 'acme',
    name: 'Acme',
    api: 'openai',
    baseUrl,
    auth: { kind: 'bearer', token: 'sk-test-123' },
    enabled: true,
    headers: { 'x-title': 'Switchyard' },
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
    ...fields,
  };
}

function context(fields: Partial<ProviderConfig> = {}, signal = new AbortController().signal): CallContext {
  return { provider: provider(fields), providerModel: 'gpt-4o-mini', signal, dispatcher };
}

const request: TextRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }], maxTokens: 50, stream: false };

function answerJson(status: number, text: string): Handler {
  return (response) => response.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

function answerSse(text: string): Handler {
  return (response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).end(text);
}

describe('openaiAdapter.generate', () => {
  it('posts the converted body to /chat/completions with the key and provider headers', async () => {
    handler = answerJson(200, loadFixture('text.json'));
    const result = await openaiAdapter.generate(request, context());
    expect(result.content).toEqual([{ type: 'text', text: 'The capital of France is Paris.' }]);
    expect(result.usage).toMatchObject({ promptTokens: 14, completionTokens: 8 });
    const [sent] = received;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-123');
    expect(sent.headers['x-title']).toBe('Switchyard');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of France?' }], max_tokens: 50 });
  });

  it('sends no Authorization header without a key, and tolerates a trailing slash in the base URL', async () => {
    handler = answerJson(200, loadFixture('text.json'));
    await openaiAdapter.generate(request, context({ auth: { kind: 'none' }, baseUrl: `${baseUrl}/` }));
    expect(received[0].url).toBe('/v1/chat/completions');
    expect(received[0].headers).not.toHaveProperty('authorization');
  });

  it('rejects with a retryable UpstreamError on 429', async () => {
    handler = (response) =>
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' })
        .end(JSON.stringify({ error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', code: 'rate_limit_exceeded' } }));
    const failure = openaiAdapter.generate(request, context());
    await expect(failure).rejects.toBeInstanceOf(UpstreamError);
    await expect(failure).rejects.toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 3, message: expect.stringContaining('Rate limit reached') });
  });

  it('rejects with the in-band error of a 200 answer', async () => {
    handler = answerJson(200, loadFixture('error-in-body.json'));
    await expect(openaiAdapter.generate(request, context())).rejects.toMatchObject({ name: 'UpstreamError', status: 429 });
  });

  it('refuses top_k for api.openai.com before sending anything', async () => {
    await expect(openaiAdapter.generate({ ...request, topK: 5 }, context({ baseUrl: 'https://api.openai.com/v1' }))).rejects.toBeInstanceOf(GatewayError);
  });
});

describe('openaiAdapter.stream', () => {
  it('streams the converted parts and asks for usage', async () => {
    handler = answerSse(loadFixture('tool-calls.txt'));
    const parts = await collect(await openaiAdapter.stream({ ...request, stream: true }, context()));
    expect(received[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(parts[0]).toMatchObject({ type: 'start', providerModel: 'gpt-4o-mini-2024-07-18' });
    expect(parts.filter((part) => part.type === 'tool-call-start')).toHaveLength(2);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls', usage: { promptTokens: 92, completionTokens: 51 } });
  });

  it('rejects when the first event is an error, before any part is handed over', async () => {
    handler = answerSse(loadFixture('error-first-event.txt'));
    await expect(openaiAdapter.stream(request, context())).rejects.toMatchObject({ name: 'UpstreamError', retryable: true });
  });

  it('rejects on an error status', async () => {
    handler = answerJson(503, JSON.stringify({ error: { message: 'Service Unavailable' } }));
    await expect(openaiAdapter.stream(request, context())).rejects.toMatchObject({ name: 'UpstreamError', status: 503 });
  });

  it('ends with a timeout error part when the upstream goes quiet mid-stream', async () => {
    handler = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(loadFixture('text.txt').split('\n\n').slice(0, 2).join('\n\n') + '\n\n');
    };
    const parts = await collect(await openaiAdapter.stream(request, context({ timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 100 } })));
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_timeout', status: 504, message: 'acme timed out' } });
  });

  it('rejects with a timeout when no event arrives within the first-byte budget', async () => {
    handler = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': keep-alive\n\n');
    };
    await expect(
      openaiAdapter.stream(request, context({ timeouts: { connectMs: 1000, firstByteMs: 100, idleMs: 5000 } })),
    ).rejects.toMatchObject({ name: 'UpstreamError', code: 'upstream_timeout' });
    await clientClosedEarly;
  });
});
