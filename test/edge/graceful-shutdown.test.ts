import { connect } from 'node:net';
import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.js';
import { createAccountByCli, useShutdownFixture, waitForExit } from '../helpers/shutdown-fixture.js';
import { spawnServer } from '../helpers/spawn-server.js';

const drainMs = 1_500;
// The default: undici keeps an idle connection for the server's keep-alive timeout less a second,
// so the idle connection below is still open when the listener closes.
const keepAliveMs = 5_000;
const { environment } = useShutdownFixture({ drainMs, keepAliveMs });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chatBody(content: string, stream = false) {
  return JSON.stringify({ model: 'sim/openai-model', max_tokens: 100, stream, messages: [{ role: 'user', content }] });
}

describe('graceful shutdown, as a load balancer that follows /ready sees it', () => {
  it('drains with /ready 503 while serving, closes kept-alive connections with Connection: close, and lets streams finish', async () => {
    const env = environment('drain');
    const { key } = createAccountByCli(env);
    const { child, url } = await spawnServer(env);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // Three kept-alive connections: one busy during the drain, one idle across the listener's
    // close, one carrying a stream that outlives the drain.
    const busy = new Client(url);
    const idle = new Client(url);
    const streaming = new Client(url);
    const drainStreaming = new Client(url);
    try {
      for (const client of [busy, idle]) {
        const warm = await client.request({ method: 'POST', path: '/v1/chat/completions', headers, body: chatBody('before') });
        expect(warm.statusCode).toBe(200);
        expect(warm.headers.connection).toBe('keep-alive');
        await warm.body.text();
      }
      const stream = await streaming.request({ method: 'POST', path: '/v1/chat/completions', headers, body: chatBody('[[sim:reply_tokens=40]] long', true) });
      expect(stream.statusCode).toBe(200);
      const streamText = stream.body.text();

      const exited = waitForExit(child);
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      await sleep(200);

      // Draining: /ready says 503 in the envelope, with the request id.
      const ready = await fetch(`${url}/ready`);
      expect(ready.status).toBe(503);
      const readyBody = (await ready.json()) as { error: { code: string; metadata: { request_id: string } } };
      expect(readyBody.error.code).toBe('service_unavailable');
      expect(readyBody.error.metadata.request_id).toBe(ready.headers.get('x-request-id'));

      // …while requests are still served; the kept-alive connection is closed after its next answer.
      const during = await busy.request({ method: 'POST', path: '/v1/chat/completions', headers, body: chatBody('during') });
      expect(during.statusCode).toBe(200);
      expect(during.headers.connection).toBe('close');
      await during.body.text();
      const again = await busy.request({ method: 'GET', path: '/v1/credits', headers });
      expect(again.statusCode).toBe(200);
      expect(again.headers.connection).toBe('close');
      await again.body.text();
      // A stream that begins in the drain is told to close as well, and ends whole.
      const drainStream = await drainStreaming.request({ method: 'POST', path: '/v1/chat/completions', headers, body: chatBody('[[sim:reply_tokens=2]] drain', true) });
      expect(drainStream.statusCode).toBe(200);
      expect(drainStream.headers.connection).toBe('close');
      expect(await drainStream.body.text()).toContain('data: [DONE]');

      // The listener closes after the drain: new connections are refused …
      await sleep(Math.max(0, signalledAt + drainMs + 300 - Date.now()));
      await expect(fetch(`${url}/health`)).rejects.toThrow();
      // … but the connection that sat idle across the close is still served (not reset), and told to close.
      const late = await idle.request({ method: 'GET', path: '/v1/credits', headers });
      expect(late.statusCode).toBe(200);
      expect(late.headers.connection).toBe('close');
      expect(late.headers['x-request-id']).toMatch(/^req_/);
      await late.body.text();

      // The stream that began before SIGTERM ends whole, and the process exits 0.
      const text = await streamText;
      expect(text).toContain('data: [DONE]');
      expect(await exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(drainMs + 2 * keepAliveMs + 3_000);
    } finally {
      await Promise.all([busy.close(), idle.close(), streaming.close(), drainStreaming.close()]);
    }

    // Every request served was settled and logged; nothing stayed reserved.
    const store = await createStore(env.DATABASE_URL);
    try {
      const rows = await store.db.selectFrom('requests').select(['status']).execute();
      expect(rows.map((row) => row.status).sort()).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
      expect(await store.db.selectFrom('reservations').select('id').execute()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('serves a request pipelined behind a stream that ends after the listener closed, instead of a bare 503', async () => {
    const env = environment('pipelined');
    const { key } = createAccountByCli(env);
    const { child, url } = await spawnServer(env);
    const port = Number(new URL(url).port);
    const request = (method: string, path: string, body?: string) =>
      `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\n` +
      (body === undefined ? '\r\n' : `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<boolean>((resolve) => socket.once('close', (hadError) => resolve(hadError)));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    // A three-second stream, and, once the listener has closed, a second request behind it on
    // the same connection (Node hands a pipelined request to the app as soon as it arrives).
    socket.write(request('POST', '/v1/chat/completions', chatBody('[[sim:reply_tokens=60]] pipelined', true)));
    await sleep(200);
    const exited = waitForExit(child);
    child.kill('SIGTERM');
    await sleep(drainMs + 300);
    socket.write(request('GET', '/v1/credits'));
    expect(await closed).toBe(false);
    expect(await exited).toBe(0);

    const second = received.slice(received.indexOf('HTTP/1.1', 10));
    expect(received.startsWith('HTTP/1.1 200')).toBe(true);
    expect(received).toContain('data: [DONE]');
    expect(second).toMatch(/^HTTP\/1\.1 200 /);
    expect(second.toLowerCase()).toContain('connection: close');
    expect(second.toLowerCase()).toMatch(/x-request-id: req_/);
    expect(second).toContain('"total_credits":10');
    expect(received).not.toContain('"error":"Service Unavailable"');
  }, 120_000);
});
