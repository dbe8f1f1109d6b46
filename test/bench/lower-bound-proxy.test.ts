import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOKS_STATS_PREFIX, LOWER_BOUND_COST, startLowerBoundProxy } from '../../bench/investigations/lower-bound-proxy.js';
import { startSimulator, type Simulator } from '@switchyard/simulator';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-lower-bound-'));
let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator();
});
afterAll(async () => {
  await simulator.close();
  rmSync(directory, { recursive: true, force: true });
});

const path = '/openai/v1/chat/completions';
const headers = { 'content-type': 'application/json', authorization: 'Bearer sim-key' };
const ask = { model: 'gpt-sim', messages: [{ role: 'user', content: 'Say something.' }] };

async function completion(origin: string): Promise<{ status: number; body: { choices: Array<{ message: { content: string } }>; usage: { completion_tokens: number } } }> {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers, body: JSON.stringify(ask) });
  return { status: response.status, body: (await response.json()) as never };
}

async function stream(origin: string): Promise<{ contentType: string | null; events: string[] }> {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers, body: JSON.stringify({ ...ask, stream: true, stream_options: { include_usage: true } }) });
  const text = await response.text();
  return { contentType: response.headers.get('content-type'), events: text.split('\n\n').filter((event) => event.startsWith('data: ')) };
}

describe.each([
  { framework: 'node:http', fastify: false },
  { framework: 'Fastify', fastify: true },
])('the lower-bound proxy on $framework', ({ fastify }) => {
  it('relays answers and event streams as the floor does, and keeps no books unless asked', async () => {
    const proxy = await startLowerBoundProxy({ upstream: simulator.url, fastify });
    try {
      const direct = await completion(simulator.url);
      const relayed = await completion(proxy.url);
      expect(relayed.status).toBe(200);
      expect(relayed.body.choices[0].message.content).toBe(direct.body.choices[0].message.content);
      const events = await stream(proxy.url);
      expect(events.contentType).toMatch(/^text\/event-stream/);
      expect(events.events.at(-1)).toBe('data: [DONE]');
      expect(events.events.length).toBe((await stream(simulator.url)).events.length);
      expect(proxy.booksStats()).toBeUndefined();
      expect(proxy.store).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('with books, answers each POST only once its charge and request row are committed, out of the lease', async () => {
    const proxy = await startLowerBoundProxy({ upstream: simulator.url, fastify, books: join(directory, `books-${fastify}.sqlite`) });
    try {
      const database = proxy.store!.sqlite!;
      // Another connection holds the write lock: the books writer's commit fails (busy, at once) and
      // is retried with backoff, and the answers wait for it.
      database.pragma('busy_timeout = 0');
      const other = new SqliteDatabase(join(directory, `books-${fastify}.sqlite`));
      other.exec('begin immediate');
      let arrived = 0;
      let pending: Promise<Array<Awaited<ReturnType<typeof completion>>>>;
      try {
        pending = Promise.all([completion(proxy.url), completion(proxy.url), completion(proxy.url)].map((answer) => answer.finally(() => (arrived += 1))));
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(arrived).toBe(0);
      } finally {
        other.exec('commit');
        other.close();
      }
      const answers = await pending;
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      const rows = database.prepare('select cost, completion_tokens, streamed from requests').safeIntegers(true).all() as Array<{ cost: bigint; completion_tokens: bigint; streamed: bigint }>;
      expect(rows).toHaveLength(3);
      for (const row of rows) {
        expect(row.cost).toBe(LOWER_BOUND_COST);
        expect(Number(row.completion_tokens)).toBe(answers[0].body.usage.completion_tokens);
        expect(row.streamed).toBe(0n);
      }
      await stream(proxy.url);
      const charges = database.prepare("select count(*) as n, sum(amount) as total from ledger_entries where kind = 'charge'").safeIntegers(true).get() as { n: bigint; total: bigint };
      expect(charges).toEqual({ n: 4n, total: 4n * LOWER_BOUND_COST });
      expect(Number((database.prepare('select count(*) as n from requests where streamed = 1').get() as { n: number }).n)).toBe(1);
      // Out of the lease: the account's reservation shrank by what was charged.
      const lease = database.prepare('select amount from reservations').safeIntegers(true).get() as { amount: bigint };
      expect(lease.amount).toBe(10n ** 15n - 4n * LOWER_BOUND_COST);
      const stats = proxy.booksStats();
      expect(stats?.written).toBe(4);
      expect(stats?.batches).toBeGreaterThanOrEqual(2);
    } finally {
      await proxy.close();
    }
  });
});

describe('the lower-bound proxy as a command', () => {
  it('prints its books writer counts as it exits, for the driver', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/investigations/lower-bound-proxy.ts', '--upstream', simulator.url, '--books', join(directory, 'cli.sqlite')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => /listening on (\S+)/.exec(output)?.[1], { timeout: 20_000 }).toBeTruthy();
      const origin = /listening on (\S+)/.exec(output)![1];
      expect((await completion(origin)).status).toBe(200);
      expect((await completion(origin)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const line = output.split('\n').find((one) => one.startsWith(BOOKS_STATS_PREFIX));
    expect(JSON.parse(line!.slice(BOOKS_STATS_PREFIX.length))).toMatchObject({ written: 2, quarantined: 0 });
  }, 30_000);
});
