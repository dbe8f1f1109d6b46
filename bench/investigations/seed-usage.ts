// `npm run bench:usage [-- options]`: seeds a request log of 1M rows (and its rollups) for one
// account over 90 days, on SQLite and on PostgreSQL, then times /usage and /requests through the
// real application. Writes bench/results/usage-<timestamp>.json. See bench/README.md.
import { rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { createAccount } from '../../src/accounts/create-account.js';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { buildApp } from '../../src/app.js';
import { RequestLog } from '../../src/billing/request-log.js';
import { rollUpRequests } from '../../src/billing/roll-up-requests.js';
import { loadConfig } from '../../src/config/load-config.js';
import { closeContext, createContext } from '../../src/create-context.js';
import { listActiveKeys } from '../../src/store/repositories/api-keys.js';
import { addUsageRollups, type UsageRollupDelta } from '../../src/billing/db/usage-rollups.js';
import { bulkInsertRequests } from './bulk-insert-requests.js';
import { generateRequestRows } from './generate-request-rows.js';
import { measureInject, type Timing } from './measure-inject.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dayMs = 86_400_000;
const targets = { usageMs: 100, requestsFirstPageMs: 50 };

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '90' },
    runs: { type: 'string', default: '21' },
    'writer-rows': { type: 'string', default: '50000' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    'postgres-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? '' },
    out: { type: 'string', default: join(root, 'bench', 'results') },
  },
});
const rows = Number(values.rows);
const days = Number(values.days);
const runs = Number(values.runs);
const writerRows = Number(values['writer-rows']);

interface DatabaseResult {
  database: 'sqlite' | 'postgres';
  seed: { rows: number; rollupRows: number; seconds: number; rowsPerSecond: number };
  queries: Record<string, Timing>;
  writer: { rows: number; seconds: number; rowsPerSecond: number; batches: number };
  pass: { usage: boolean; requestsFirstPage: boolean };
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function runOn(database: 'sqlite' | 'postgres'): Promise<DatabaseResult> {
  const stamp = Date.now().toString(36);
  const sqlitePath = join(tmpdir(), `switchyard-usage-${stamp}.db`);
  const schema = database === 'postgres' ? `bench_usage_${stamp}` : undefined;
  const databaseUrl = database === 'sqlite' ? `sqlite:${sqlitePath}` : values['postgres-url']!;
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', SWITCHYARD_CONFIG: '' });
  const context = await createContext(config, { logger: pino({ level: 'silent' }), store: { schema, poolSize: 10 } });
  try {
    const { account, key } = await createAccount(context, { name: 'bench', credits: 1_000_000n * 1_000_000_000n });
    const workers = [];
    for (let index = 1; index <= 4; index += 1) workers.push(await createApiKey(context.store.db, context, { accountId: account.id, name: `worker-${index}`, management: false }));
    const keyIds = (await listActiveKeys(context.store.db, account.id, { limit: 10 })).map((record) => record.id);

    say(`${database}: seeding ${rows.toLocaleString('en')} rows over ${days} days…`);
    const seedStarted = performance.now();
    const rollups = new Map<string, UsageRollupDelta>();
    let seeded = 0;
    for (const chunk of generateRequestRows({ accountId: account.id, keyIds, rows, days, now: Date.now() - 60_000, chunk: 20_000 })) {
      await bulkInsertRequests(context.store, chunk);
      for (const delta of rollUpRequests(chunk)) {
        const id = `${delta.day}|${delta.keyId}|${delta.model}|${delta.provider}`;
        const sum = rollups.get(id);
        if (!sum) rollups.set(id, delta);
        else Object.assign(sum, { requests: sum.requests + delta.requests, promptTokens: sum.promptTokens + delta.promptTokens, completionTokens: sum.completionTokens + delta.completionTokens, cost: sum.cost + delta.cost });
      }
      seeded += chunk.length;
      if (seeded % 200_000 === 0) say(`  ${seeded.toLocaleString('en')} rows, ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    }
    await context.store.db.transaction().execute((trx) => addUsageRollups(trx, [...rollups.values()]));
    // What a long-lived table has anyway: planner statistics (and on PostgreSQL a visibility map).
    if (database === 'sqlite') await sql`analyze`.execute(context.store.db);
    else await sql`vacuum analyze requests, usage_rollups`.execute(context.store.db);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    say(`  seeded in ${seedSeconds.toFixed(1)} s (${rollups.size} rollup rows)`);

    const app = await buildApp(context);
    const today = new Date().toISOString().slice(0, 10);
    const daysAgo = (count: number) => new Date(Date.now() - count * dayMs).toISOString().slice(0, 10);
    const sample = (await app.inject({ method: 'GET', url: '/v1/requests?limit=1', headers: { authorization: `Bearer ${key}` } })).json() as { data: Array<{ id: string }> };
    const queries: Record<string, [string, string]> = {
      usage_30_days: [`/v1/usage?from=${daysAgo(29)}&to=${today}`, key],
      requests_first_page: ['/v1/requests', key],
      usage_90_days: [`/v1/usage?from=${daysAgo(89)}&to=${today}`, key],
      usage_30_days_ordinary_key: [`/v1/usage?from=${daysAgo(29)}&to=${today}`, workers[3].secret],
      requests_first_page_ordinary_key: ['/v1/requests', workers[3].secret],
      requests_by_model: ['/v1/requests?model=deepseek/deepseek-chat', key],
      requests_by_status_refused: ['/v1/requests?status=refused', key],
      requests_one_day_60_days_ago: [`/v1/requests?from=${daysAgo(60)}&to=${daysAgo(60)}`, key],
      requests_500_rows: ['/v1/requests?limit=500', key],
      request_by_id: [`/v1/requests/${sample.data[0].id}`, key],
    };
    const timings: Record<string, Timing> = {};
    for (const [name, [url, secret]] of Object.entries(queries)) {
      timings[name] = await measureInject(app, url, secret, runs);
      say(`  ${name.padEnd(34)} median ${String(timings[name].medianMs).padStart(7)} ms   p95 ${String(timings[name].p95Ms).padStart(7)} ms   (${timings[name].rows} rows)`);
    }
    await app.close();

    // The batch writer at work on the full table: how many rows a second it sustains.
    const writer = new RequestLog({ store: context.store, logger: context.logger });
    const writerStarted = performance.now();
    for (const chunk of generateRequestRows({ accountId: account.id, keyIds, rows: writerRows, days: 1, now: Date.now(), chunk: 1_000 })) {
      for (const record of chunk) await writer.record(record);
    }
    await writer.close();
    const writerSeconds = (performance.now() - writerStarted) / 1000;
    say(`  request log writer: ${writerRows.toLocaleString('en')} rows in ${writerSeconds.toFixed(2)} s (${Math.round(writerRows / writerSeconds).toLocaleString('en')} rows/s, ${writer.stats().batches} batches)`);

    return {
      database,
      seed: { rows, rollupRows: rollups.size, seconds: Math.round(seedSeconds * 10) / 10, rowsPerSecond: Math.round(rows / seedSeconds) },
      queries: timings,
      writer: { rows: writerRows, seconds: Math.round(writerSeconds * 100) / 100, rowsPerSecond: Math.round(writerRows / writerSeconds), batches: writer.stats().batches },
      pass: { usage: timings.usage_30_days.medianMs < targets.usageMs, requestsFirstPage: timings.requests_first_page.medianMs < targets.requestsFirstPageMs },
    };
  } finally {
    await closeContext(context);
    if (database === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePath}${suffix}`, { force: true });
    if (schema) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  }
}

async function main(): Promise<void> {
  const results: DatabaseResult[] = [];
  for (const database of values.databases!.split(',').map((name) => name.trim())) {
    if (database !== 'sqlite' && database !== 'postgres') throw new Error(`unknown database '${database}' (sqlite, postgres)`);
    if (database === 'postgres' && !values['postgres-url']) {
      say('postgres: SKIPPED (set BENCH_DATABASE_URL or TEST_DATABASE_URL, or pass --postgres-url)');
      continue;
    }
    results.push(await runOn(database));
  }
  const timestamp = new Date().toISOString();
  const file = join(resolve(values.out!), `usage-${timestamp.replace(/[:.]/g, '-')}.json`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify({ timestamp, node: process.version, platform: `${process.platform} ${process.arch}`, rows, days, runs, targets, results }, null, 2)}\n`);
  say(`results: ${file}`);
  const failed = results.filter((result) => !result.pass.usage || !result.pass.requestsFirstPage);
  for (const result of failed) say(`${result.database}: target missed (/usage < ${targets.usageMs} ms, /requests first page < ${targets.requestsFirstPageMs} ms)`);
  process.exitCode = failed.length > 0 ? 1 : 0;
}

await main();
