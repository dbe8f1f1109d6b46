import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@switchyard/simulator';
import { createStore, type Store } from '../../src/store/create-store.js';
import { uniqueSchemaName } from '../helpers/test-databases.js';
import { videoCatalogYaml } from './video-gateway.js';

/**
 * Durability of video tasks across real processes: `switchyard serve` killed with SIGKILL while a
 * task runs, then restarted; and two `serve` processes sharing one PostgreSQL database.
 */
const bin = resolve('bin/switchyard.js');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  // Restarts are what this file is about, not the first seconds' speed: no warm-up (src/cli/warm-up.ts).
  const child = spawn(process.execPath, [bin, 'serve'], { env: { ...process.env, SWITCHYARD_WARMUP_REQUESTS: '0', ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 180_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1], exited });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function createAccount(env: NodeJS.ProcessEnv, credits: number): { key: string; accountId: string } {
  const created = spawnSync(process.execPath, [bin, 'admin', 'create-account', '--credits', String(credits)], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`create-account failed: ${created.stderr}`);
  const { key, data } = JSON.parse(created.stdout) as { key: string; data: { id: string } };
  return { key, accountId: data.id };
}

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json().catch(() => null) };
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

async function moneyOf(store: Store, accountId: string) {
  const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  const charges = await sql<{ request_id: string; amount: bigint | string }>`select request_id, amount from ledger_entries where account_id = ${accountId} and kind = 'charge'`.execute(store.db);
  const open = await store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute();
  return { reserved: BigInt(account.reserved), usage: BigInt(account.total_usage), charges: charges.rows, openReservations: open.length };
}

describe('video tasks survive kill -9', () => {
  it('resumes polling after a restart, charges once, and the provider saw one submission', async () => {
    const simulator = await startSimulator({ videoDurationMs: 4_000 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-video-crash-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, videoCatalogYaml(simulator.url, { minPollSeconds: 0.1, maxPollSeconds: 0.3 }));
    const env = { DATABASE_URL: `sqlite:${join(directory, 'videos.db')}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_INSTANCE_TIMEOUT_MS: '1000' };
    const { key, accountId } = createAccount(env, 10);
    const store = await createStore(env.DATABASE_URL);
    try {
      const first = await startServer(env);
      const created = await call(first.url, key, 'POST', '/v1/videos', { model: 'sim/sora', prompt: 'survive this', seconds: 8 });
      expect(created.status).toBe(202);
      const id: string = created.json.data.id;
      // Let the worker see the job running, then kill the process without warning.
      await waitFor(() => call(first.url, key, 'GET', `/v1/videos/${id}`), (answer) => answer.json.data.status === 'in_progress', 10_000, 'in_progress');
      first.child.kill('SIGKILL');
      await first.exited;

      const held = await moneyOf(store, accountId);
      expect(held.reserved).toBe(800_000_000n);
      expect(held.openReservations).toBe(1);

      const second = await startServer(env);
      const done = await waitFor(() => call(second.url, key, 'GET', `/v1/videos/${id}`), (answer) => ['completed', 'failed'].includes(answer.json.data.status), 30_000, 'completion');
      expect(done.json.data).toMatchObject({ status: 'completed', cost: 0.8, urls: [`/v1/videos/${id}/content`] });
      const content = await fetch(`${second.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${key}` } });
      expect(content.status).toBe(200);
      expect(Buffer.from(await content.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');

      const settled = await moneyOf(store, accountId);
      expect(settled).toMatchObject({ reserved: 0n, usage: 800_000_000n, openReservations: 0 });
      expect(settled.charges).toHaveLength(1);
      expect(simulator.stats().videos).toMatchObject({ submissions: 1, accepted: 1 });
      const credits = await call(second.url, key, 'GET', '/v1/credits');
      expect(credits.json.data.balance).toBe(9.2);

      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      await store.close();
      await simulator.close();
    }
  }, 240_000);
});

const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

describe.skipIf(!postgresUrl)('two gateway processes on one PostgreSQL database', () => {
  it('poll each task one at a time and settle each once', async () => {
    const schema = uniqueSchemaName();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    // Polls take 150 ms at the provider, so two instances polling one job at once would overlap there.
    const simulator = await startSimulator({ videoDurationMs: 1_500, videoPollLatencyMs: 150 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-video-pg-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, videoCatalogYaml(simulator.url, { minPollSeconds: 0.05, maxPollSeconds: 0.1 }));
    const env = { DATABASE_URL: postgresUrl!, PGOPTIONS: `-c search_path=${schema}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent' };
    const store = await createStore(postgresUrl!, { schema });
    try {
      const { key, accountId } = createAccount(env, 20);
      const instances = await Promise.all([startServer(env), startServer(env)]);
      const ids: string[] = [];
      for (let index = 0; index < 8; index += 1) {
        const created = await call(instances[index % 2].url, key, 'POST', '/v1/videos', { model: 'sim/sora', prompt: `task ${index}`, seconds: 4 });
        expect(created.status).toBe(202);
        ids.push(created.json.data.id);
      }
      for (const id of ids) {
        const done = await waitFor(() => call(instances[1].url, key, 'GET', `/v1/videos/${id}`), (answer) => ['completed', 'failed'].includes(answer.json.data.status), 60_000, `task ${id}`);
        expect(done.json.data).toMatchObject({ status: 'completed', cost: 0.4 });
      }
      const videos = simulator.stats().videos!;
      expect(videos).toMatchObject({ submissions: 8, accepted: 8, maxConcurrentPolls: 1 });
      expect(Object.values(videos.jobs).every((job) => job.polls >= 2 && job.maxConcurrentPolls === 1)).toBe(true);
      const money = await moneyOf(store, accountId);
      expect(money).toMatchObject({ reserved: 0n, usage: 3_200_000_000n, openReservations: 0 });
      expect(money.charges).toHaveLength(8);
      expect(new Set(money.charges.map((charge) => charge.request_id)).size).toBe(8);
      // Both instances stop cleanly.
      for (const instance of instances) instance.child.kill('SIGTERM');
      expect(await Promise.all(instances.map((instance) => instance.exited))).toEqual([0, 0]);
    } finally {
      await store.close();
      await simulator.close();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  }, 240_000);
});
