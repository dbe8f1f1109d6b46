import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { TextRequest } from '../../core/text-request.js';
import type { CallContext } from '../provider-adapter.js';
import { collect } from '../shared/__fixtures__/collect.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { readFixture } from './__fixtures__/read-fixture.js';
import { anthropicAdapter } from './anthropic-adapter.js';

interface Recorded {
  url?: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

type Handler = (response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let recorded: Recorded[];
let responseClosed: Promise<void>;
const dispatcher = new Agent();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      recorded.push({ url: request.url, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      responseClosed = once(response, 'close').then(() => undefined);
      handler(response);
    });
  });
  baseUrl = await listenLocally(server);
});

afterAll(async () => {
  await closeServer(server);
  await dispatcher.close();
});

beforeEach(() => {
  recorded = [];
});

function context(overrides: Partial<ProviderConfig> = {}, signal = new AbortController().signal): CallContext {
  const provider: ProviderConfig = {
    id: 'anthropic',
    name: 'Anthropic',
    api: 'anthropic',
    baseUrl,
    auth: { kind: 'api-key-header', header: 'x-api-key', key: 'sk-ant-test-key' },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
    ...overrides,
  };
  return { provider, providerModel: 'claude-sonnet-4-5-20250929', signal, dispatcher };
}

const request: TextRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }], maxTokens: 256, stream: false };

function json(status: number, fixture: string): Handler {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(readFixture(fixture));
  };
}

/** Writes an SSE transcript event by event; `hold` leaves the body open afterwards. */
function sse(transcript: string, hold = false): Handler {
  return (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of transcript.split('\n\n').filter((text) => text.trim() !== '')) response.write(`${event}\n\n`);
    if (!hold) response.end();
  };
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

/**
 * True when the server saw the response close well before the idle timeout (`idleMs` below),
 * which would otherwise close a leaked body on its own.
 */
async function closedPromptly(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 1000);
  });
  const closed = await Promise.race([responseClosed.then(() => true as const), late]);
  clearTimeout(timer);
  return closed;
}

describe('anthropicAdapter.generate', () => {
  it('posts to /v1/messages with the key and version headers and converts the answer', async () => {
    handler = json(200, 'text-response.json');
    const result = await anthropicAdapter.generate(request, context({ baseUrl: `${baseUrl}/` }));
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Hello! The capital of France is Paris.' }], finishReason: 'stop' });
    expect(recorded).toHaveLength(1);
    const [sent] = recorded;
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers).toMatchObject({ 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 256,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] }],
    });
  });

  it('rejects a 529 overloaded answer as a retryable UpstreamError carrying the message', async () => {
    handler = json(529, 'overloaded-error-response.json');
    const error = await rejection(anthropicAdapter.generate(request, context()));
    expect(error).toMatchObject({ provider: 'anthropic', status: 529, retryable: true, code: 'upstream_error' });
    expect(error.message).toBe('anthropic answered 529: Overloaded');
  });

  it('rejects a 400 as not retryable', async () => {
    handler = (response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } }));
    };
    const error = await rejection(anthropicAdapter.generate(request, context()));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('max_tokens: Field required');
  });

  it('rejects a 200 whose body is not a JSON object as a retryable failure', async () => {
    handler = (response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('<html>Bad gateway</html>');
    };
    const error = await rejection(anthropicAdapter.generate(request, context()));
    expect(error).toMatchObject({ retryable: true, body: '<html>Bad gateway</html>' });
  });
});

describe('anthropicAdapter.stream', () => {
  it('asks for a stream and converts the events, ending with finish', async () => {
    handler = sse(readFixture('text-stream.sse'));
    const parts = await collect(await anthropicAdapter.stream({ ...request, stream: true }, context()));
    expect(recorded[0].body.stream).toBe(true);
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-delta', 'text-delta', 'finish']);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 21, completionTokens: 13 } });
  });

  it('rejects, so that routing can fail over, when the first event is an in-band error', async () => {
    handler = sse(readFixture('overloaded-error-first-stream.sse'));
    const error = await rejection(anthropicAdapter.stream(request, context()));
    expect(error).toMatchObject({ status: 529, retryable: true, code: 'upstream_error' });
    expect(error.message).toContain('overloaded_error');
  });

  it('rejects with a timeout when no event arrives within the first-byte budget', async () => {
    handler = (response) => response.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
    const startedAt = Date.now();
    const error = await rejection(anthropicAdapter.stream(request, context({ timeouts: { connectMs: 1000, firstByteMs: 300, idleMs: 5000 } })));
    expect(error).toMatchObject({ code: 'upstream_timeout', status: 0, retryable: true, message: 'anthropic sent no stream event in time' });
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(await closedPromptly()).toBe(true);
  });
});
