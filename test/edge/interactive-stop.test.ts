import type { ChildProcess } from 'node:child_process';
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

/**
 * The books after the process exited: one request row with that status and a charge, the
 * account's usage equal to it, and no reservation left.
 */
async function expectOneSettledRequest(databaseUrl: string, status: 'completed' | 'aborted') {
  const store = await createStore(databaseUrl);
  try {
    const rows = await store.db.selectFrom('requests').select(['status', 'cost']).execute();
    const account = await store.db.selectFrom('accounts').select(['total_usage', 'reserved']).executeTakeFirstOrThrow();
    expect(rows.map((row) => row.status)).toEqual([status]);
    expect(BigInt(rows[0]!.cost)).toBeGreaterThan(0n);
    expect(BigInt(account.total_usage)).toBe(BigInt(rows[0]!.cost));
    expect(await store.db.selectFrom('reservations').select('id').execute()).toEqual([]);
    expect(BigInt(account.reserved)).toBe(0n);
  } finally {
    await store.close();
  }
}

/** A 50-second stream, under way; `text` resolves to its whole text, or 'cut'. */
async function startLongStream(client: Client, key: string): Promise<{ text: Promise<string> }> {
  const stream = await client.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: streamBody('[[sim:reply_tokens=1000]] long'),
  });
  expect(stream.statusCode).toBe(200);
  const text = stream.body.text().catch(() => 'cut');
  await sleep(500);
  return { text };
}

/**
 * A server on `env` with a 50-second stream under way, stopped by `stop` (handed the process and
 * its exit): the stream must have been cut, and what it generated before the cut charged, with
 * nothing else left held.
 */
async function expectStreamCutAndSettled(
  env: Record<string, string> & { DATABASE_URL: string },
  stop: (child: ChildProcess, exited: Promise<number | null>) => Promise<void>,
): Promise<void> {
  const { key } = createAccountByCli(env);
  const { child, url } = await spawnServer(env);
  const streaming = new Client(url);
  try {
    const { text: streamText } = await startLongStream(streaming, key);
    await stop(child, waitForExit(child));
    expect(await streamText).not.toContain('data: [DONE]');
  } finally {
    await streaming.close();
  }
  await expectOneSettledRequest(env.DATABASE_URL, 'aborted');
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
    await expectOneSettledRequest(env.DATABASE_URL, 'completed');
  }, 240_000);

  it('stops at once on a second Ctrl-C, settling the cut stream for what it generated', async () => {
    // A 50-second stream: the first SIGINT waits for it, the second does not.
    await expectStreamCutAndSettled(environment('second-interrupt'), async (child, exited) => {
      child.kill('SIGINT');
      await sleep(1_000);
      expect(child.exitCode).toBeNull();
      const secondAt = Date.now();
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(Date.now() - secondAt).toBeLessThan(5_000);
    });
  }, 240_000);
});

describe('SIGTERM past the grace period', () => {
  it('settles the stream it cut, as the second Ctrl-C does', async () => {
    const env = { ...environment('grace-cut'), SWITCHYARD_SHUTDOWN_DRAIN_MS: '0', SWITCHYARD_SHUTDOWN_GRACE_MS: '1000' };
    await expectStreamCutAndSettled(env, async (child, exited) => {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  }, 240_000);
});
