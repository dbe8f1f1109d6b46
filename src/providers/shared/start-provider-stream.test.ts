import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/stream-part.js';
import { collect } from './__fixtures__/collect.js';
import { closeServer, listenLocally } from './__fixtures__/listen-locally.js';
import { parseSse } from './parse-sse.js';
import { toUpstreamError } from './send-request.js';
import { startProviderStream, type StreamBody } from './start-provider-stream.js';
import { toErrorPart, type StreamConverter } from './stream-converter.js';
import { UpstreamError } from '../../errors/upstream-error.js';

/**
 * A protocol made for these tests: each SSE event is a stream part as JSON, or `{"fail": status}`
 * for an in-band failure. Like the real converters it reports each failure through `toErrorPart`;
 * unlike them it adds no final part of its own, which is left to `startProviderStream`.
 */
const convertTestStream: StreamConverter = async function* (chunks, options) {
  try {
    for await (const event of parseSse(chunks)) {
      const data = JSON.parse(event.data) as StreamPart | { fail: number; retryAfter?: number };
      if ('fail' in data) {
        const { providerId } = options;
        yield toErrorPart(new UpstreamError({ provider: providerId, status: data.fail, message: `${providerId} failed`, retryAfterSeconds: data.retryAfter }), options);
        return;
      }
      yield data;
    }
  } catch (error) {
    yield toErrorPart(toUpstreamError(options.providerId, error), options);
  }
};

/** Yields error parts without telling the `UpstreamError` behind them. */
const convertWithoutReporting: StreamConverter = async function* (chunks, options) {
  for await (const part of convertTestStream(chunks, { providerId: options.providerId })) yield part;
};

const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const startEvent = event({ type: 'start', providerResponseId: 'r1' });
const text = (value: string) => event({ type: 'text-delta', text: value });
const finish = event({ type: 'finish', finishReason: 'stop', usage: { promptTokens: 3, completionTokens: 2 } });

let server: Server;
let baseUrl: string;
let respond: (response: ServerResponse) => void;
/** Settles when the server sees the current response close: `early` when we closed it before it ended. */
let closed: Promise<'early' | 'finished'>;
const dispatcher = new Agent();

beforeAll(async () => {
  server = createServer((incoming, response) => {
    incoming.resume();
    closed = once(response, 'close').then(() => (response.writableFinished ? 'finished' : 'early'));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.flushHeaders();
    respond(response);
  });
  baseUrl = await listenLocally(server);
});

afterAll(async () => {
  await closeServer(server);
  await dispatcher.close();
});

/** Opens a real upstream body (undici's BodyReadable) whose server side runs `write`. */
async function openBody(write: (response: ServerResponse) => void, signal = new AbortController().signal): Promise<StreamBody> {
  respond = write;
  const response = await request(`${baseUrl}/stream`, { method: 'POST', body: '{}', dispatcher, signal, bodyTimeout: 20_000 });
  return response.body;
}

function sends(transcript: string, hold = false): (response: ServerResponse) => void {
  return (response) => {
    response.write(transcript);
    if (!hold) response.end();
  };
}

async function startStream(body: StreamBody, options: { signal?: AbortSignal; timeoutMs?: number; convert?: StreamConverter } = {}) {
  return startProviderStream(body, options.convert ?? convertTestStream, {
    providerId: 'acme',
    signal: options.signal ?? new AbortController().signal,
    firstPartTimeoutMs: options.timeoutMs ?? 2000,
  });
}

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

/** The server saw the response close well before the 20 s body timeout would have closed it. */
async function closedEarly(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 1000)));
  const outcome = await Promise.race([closed, late]);
  clearTimeout(timer);
  return outcome === 'early';
}

const types = (parts: StreamPart[]) => parts.map((part) => part.type);

describe('startProviderStream before the first part', () => {
  it('hands over every part, the first one included, ending with the finish', async () => {
    const parts = await collect(await startStream(await openBody(sends(startEvent + text('Hel') + text('lo') + finish))));
    expect(parts).toEqual([
      { type: 'start', providerResponseId: 'r1' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
    expect(await closed).toBe('finished');
  });

  it("rejects with the converter's own UpstreamError, keeping its status, retryability and Retry-After", async () => {
    const error = await rejection(startStream(await openBody(sends(event({ fail: 400 }) + startEvent, true))));
    expect(error).toMatchObject({ provider: 'acme', status: 400, retryable: false, code: 'upstream_error', message: 'acme failed' });
    expect(await closedEarly()).toBe(true);

    const limited = await rejection(startStream(await openBody(sends(event({ fail: 429, retryAfter: 7 })))));
    expect(limited).toMatchObject({ status: 429, retryable: true, code: 'rate_limited', retryAfterSeconds: 7 });
  });

  it('rejects as retryable, from the error part, when the converter did not tell its UpstreamError', async () => {
    const error = await rejection(startStream(await openBody(sends(event({ fail: 400 }))), { convert: convertWithoutReporting }));
    expect(error).toMatchObject({ status: 502, retryable: true, message: 'acme failed' });
  });

  it('rejects as retryable when the body ends before any part', async () => {
    const error = await rejection(startStream(await openBody(sends(': just a comment\n\n'))));
    expect(error).toMatchObject({ status: 502, retryable: true, code: 'upstream_error', message: 'acme ended the stream without any event' });
  });

  it('rejects with upstream_timeout and closes the body when no part arrives within the budget', async () => {
    const startedAt = Date.now();
    const error = await rejection(startStream(await openBody(sends(': processing\n\n', true)), { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: 'upstream_timeout', status: 0, retryable: true, message: 'acme sent no stream event in time' });
    expect(Date.now() - startedAt).toBeLessThan(1500);
    expect(await closedEarly()).toBe(true);
  });

  it('rejects as aborted, not retryable, and closes the body when our own signal aborts', async () => {
    const controller = new AbortController();
    const body = await openBody(sends(': processing\n\n', true), controller.signal);
    setTimeout(() => controller.abort(), 30);
    const error = await rejection(startStream(body, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'aborted', retryable: false });
    expect(await closedEarly()).toBe(true);
  });

  it('rejects as aborted even when the signal was aborted before the call', async () => {
    const controller = new AbortController();
    const body = await openBody(sends(startEvent, true));
    controller.abort();
    await expect(startStream(body, { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted', retryable: false });
    expect(await closedEarly()).toBe(true);
  });
});

describe('startProviderStream after the first part', () => {
  it('ends with the in-band error part of a failure after the first part', async () => {
    const parts = await collect(await startStream(await openBody(sends(startEvent + text('a') + event({ fail: 503 }) + finish))));
    expect(types(parts)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', status: 502, message: 'acme failed' } });
  });

  it('adds a final error part when the body ends without one', async () => {
    const parts = await collect(await startStream(await openBody(sends(startEvent + text('Half a sen')))));
    expect(types(parts)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toMatchObject({ error: { code: 'upstream_error', status: 502, message: 'acme ended the stream without a final part' } });
  });

  it('says nothing after the final part, but reads the body to its end', async () => {
    const parts = await collect(await startStream(await openBody(sends(startEvent + finish + text('late') + finish))));
    expect(types(parts)).toEqual(['start', 'finish']);
    expect(await closed).toBe('finished');
  });

  it('ends with an error part when the converter throws instead of yielding one', async () => {
    const throwing: StreamConverter = async function* (chunks, options) {
      yield* convertTestStream(chunks, options);
      throw new Error('converter bug');
    };
    const parts = await collect(await startStream(await openBody(sends(startEvent)), { convert: throwing }));
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', status: 502, message: 'acme unreachable: converter bug' } });
  });

  it('ends with an aborted error part and closes the body when the signal aborts mid-stream', async () => {
    const controller = new AbortController();
    const body = await openBody(sends(startEvent + text('one'), true), controller.signal);
    const parts: StreamPart[] = [];
    for await (const part of await startStream(body, { signal: controller.signal })) {
      parts.push(part);
      if (part.type === 'text-delta') controller.abort();
    }
    expect(types(parts)).toEqual(['start', 'text-delta', 'error']);
    expect(parts.at(-1)).toEqual({ type: 'error', error: { code: 'aborted', status: 502, message: 'request aborted' } });
    expect(await closedEarly()).toBe(true);
  });

  it('closes the body itself on abort, whatever the transport does with the signal', async () => {
    const body = new PassThrough();
    body.write(startEvent);
    const controller = new AbortController();
    const iterator = (await startStream(body, { signal: controller.signal }))[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'start' });
    controller.abort();
    expect((await iterator.next()).value).toMatchObject({ type: 'error', error: { code: 'aborted' } });
    expect(body.destroyed).toBe(true);
  });
});

describe('startProviderStream after the final part', () => {
  /** Stops reading at the finish part, as the real converters stop at `[DONE]` or `message_stop`. */
  const stopAtFinish: StreamConverter = async function* (chunks, options) {
    for await (const part of convertTestStream(chunks, options)) {
      yield part;
      if (part.type === 'finish') return;
    }
  };

  it('lets the rest of a finished body arrive instead of cutting the connection', async () => {
    const body = await openBody((response) => {
      response.write(startEvent + finish);
      setTimeout(() => response.end(': trailing comment\n\n'), 100);
    });
    const parts = await collect(await startStream(body, { convert: stopAtFinish }));
    expect(types(parts)).toEqual(['start', 'finish']);
    expect(await closed).toBe('finished');
  });

  it('gives up a finished body that does not end within a second', async () => {
    const parts = await collect(await startStream(await openBody(sends(startEvent + finish, true)), { convert: stopAtFinish }));
    expect(types(parts)).toEqual(['start', 'finish']);
    const outcome = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))]);
    expect(outcome).toBe('early');
  });

  it('survives an abort that destroys the body after the converter stopped reading', async () => {
    const controller = new AbortController();
    const body = await openBody(sends(startEvent + finish, true), controller.signal);
    const iterator = (await startStream(body, { signal: controller.signal, convert: stopAtFinish }))[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: 'start' });
    expect((await iterator.next()).value).toMatchObject({ type: 'finish' });
    // The converter has returned its iterator; nothing but the gateway listens to the body now.
    controller.abort();
    await iterator.return?.();
    expect(await closedEarly()).toBe(true);
  });
});

describe('startProviderStream when the consumer leaves early', () => {
  it('closes the body on break', async () => {
    const seen: string[] = [];
    for await (const part of await startStream(await openBody(sends(startEvent + text('one') + text('two'), true)))) {
      seen.push(part.type);
      if (part.type === 'text-delta') break;
    }
    expect(seen).toEqual(['start', 'text-delta']);
    expect(await closedEarly()).toBe(true);
  });

  it('closes the body when the consumer returns before reading anything', async () => {
    const iterator = (await startStream(await openBody(sends(startEvent + text('one'), true))))[Symbol.asyncIterator]();
    await iterator.return?.();
    expect(await closedEarly()).toBe(true);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('settles a read that is waiting for upstream bytes when the consumer returns', async () => {
    const iterator = (await startStream(await openBody(sends(startEvent + text('one'), true))))[Symbol.asyncIterator]();
    await iterator.next(); // start
    await iterator.next(); // text-delta
    const waiting = iterator.next(); // no more bytes are coming
    await iterator.return?.();
    const last = await waiting;
    expect(last.done || last.value.type === 'error').toBe(true);
    expect(await closedEarly()).toBe(true);
  });
});
