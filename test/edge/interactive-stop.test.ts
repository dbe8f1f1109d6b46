import { Client } from 'undici';
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.js';
import { createAccountByCli, useShutdownFixture, waitForExit } from '../helpers/shutdown-fixture.js';
import { spawnServer } from '../helpers/spawn-server.js';

// A drain and a keep-alive timeout far longer than the bounds below: a SIGINT that waited for
// either (as SIGTERM does, for a load balancer) could not meet them.
const drainMs = 20_000;
const keepAliveMs = 20_000;
const { environment } = useShutdownFixture({ drainMs, keepAliveMs });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function streamBody(content: string) {
  return JSON.stringify({ model: 'sim/openai-model', max_tokens: 1000, stream: true, messages: [{ role: 'user', content }] });
}

/** The books after the process exited: every request's row, no reservation left, usage = the rows' costs. */
async function readBooks(databaseUrl: string) {
  const store = await createStore(databaseUrl);
  try {
    const rows = await store.db.selectFrom('requests').select(['status', 'cost']).execute();
    const reservations = await store.db.selectFrom('reservations').select('id').execute();
    const account = await store.db.selectFrom('accounts').select(['total_usage', 'reserved']).executeTakeFirstOrThrow();
    return { rows, reservations, usage: BigInt(account.total_usage), reserved: BigInt(account.reserved) };
  } finally {
    await store.close();
  }
}

describe('Ctrl-C (SIGINT), the interactive stop', () => {
  it('stops without the drain or the keep-alive wait, once the stream in flight has finished and been settled', async () => {
    const env = environment('first-interrupt');
    const { key } = createAccountByCli(env);
    const { child, url } = await spawnServer(env);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const idle = new Client(url);
    const streaming = new Client(url);
    try {
      // A kept-alive connection left idle (a browser tab's), and a stream of about 1.5 s.
      const warm = await idle.request({ method: 'GET', path: '/v1/credits', headers });
      expect(warm.headers.connection).toBe('keep-alive');
      await warm.body.text();
      const stream = await streaming.request({ method: 'POST', path: '/v1/chat/completions', headers, body: streamBody('[[sim:reply_tokens=30]] short') });
      expect(stream.statusCode).toBe(200);
      const streamText = stream.body.text();

      const exited = waitForExit(child);
      const signalledAt = Date.now();
      child.kill('SIGINT');
      expect(await streamText).toContain('data: [DONE]');
      expect(await exited).toBe(0);
      // SIGTERM would take the 20 s drain, then up to the 20 s keep-alive timeout of the idle connection.
      expect(Date.now() - signalledAt).toBeLessThan(8_000);
    } finally {
      await Promise.all([idle.close(), streaming.close()]);
    }
    const books = await readBooks(env.DATABASE_URL);
    expect(books.rows.map((row) => row.status)).toEqual(['completed']);
    expect(BigInt(books.rows[0]!.cost)).toBeGreaterThan(0n);
    expect(books.usage).toBe(BigInt(books.rows[0]!.cost));
    expect(books.reservations).toEqual([]);
    expect(books.reserved).toBe(0n);
  }, 240_000);

  it('stops at once on a second Ctrl-C, settling the cut stream for what it generated', async () => {
    const env = environment('second-interrupt');
    const { key } = createAccountByCli(env);
    const { child, url } = await spawnServer(env);
    const streaming = new Client(url);
    try {
      // A 50-second stream: the first SIGINT waits for it, the second does not.
      const stream = await streaming.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: streamBody('[[sim:reply_tokens=1000]] long'),
      });
      expect(stream.statusCode).toBe(200);
      const streamText = stream.body.text().catch(() => 'cut');
      await sleep(500);

      const exited = waitForExit(child);
      child.kill('SIGINT');
      await sleep(1_000);
      expect(child.exitCode).toBeNull();
      const secondAt = Date.now();
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(Date.now() - secondAt).toBeLessThan(5_000);
      expect(await streamText).not.toContain('data: [DONE]');
    } finally {
      await streaming.close();
    }
    const books = await readBooks(env.DATABASE_URL);
    expect(books.rows.map((row) => row.status)).toEqual(['aborted']);
    // What was generated before the cut is charged, and nothing else stays held.
    expect(BigInt(books.rows[0]!.cost)).toBeGreaterThan(0n);
    expect(books.usage).toBe(BigInt(books.rows[0]!.cost));
    expect(books.reservations).toEqual([]);
    expect(books.reserved).toBe(0n);
  }, 240_000);
});

describe('SIGTERM past the grace period', () => {
  it('settles the stream it cut, as the second Ctrl-C does', async () => {
    const env = { ...environment('grace-cut'), SWITCHYARD_SHUTDOWN_DRAIN_MS: '0', SWITCHYARD_SHUTDOWN_GRACE_MS: '1000' };
    const { key } = createAccountByCli(env);
    const { child, url } = await spawnServer(env);
    const streaming = new Client(url);
    try {
      const stream = await streaming.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: streamBody('[[sim:reply_tokens=1000]] long'),
      });
      expect(stream.statusCode).toBe(200);
      const streamText = stream.body.text().catch(() => 'cut');
      await sleep(500);
      const exited = waitForExit(child);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await streamText).not.toContain('data: [DONE]');
    } finally {
      await streaming.close();
    }
    const books = await readBooks(env.DATABASE_URL);
    expect(books.rows.map((row) => row.status)).toEqual(['aborted']);
    expect(BigInt(books.rows[0]!.cost)).toBeGreaterThan(0n);
    expect(books.usage).toBe(BigInt(books.rows[0]!.cost));
    expect(books.reservations).toEqual([]);
    expect(books.reserved).toBe(0n);
  }, 240_000);
});
