// `node --import tsx bench/investigations/request-log-retention.ts [options]`: what the request log's
// retention (SWITCHYARD_REQUEST_LOG_RETENTION_DAYS) does to a log `npm run bench:scale` seeded: the
// disk before and after, how long each step held what (PostgreSQL: each partition's DETACH
// CONCURRENTLY + DROP; SQLite: each batch of the delete, which runs on the event loop). The runs
// are destructive, so they work on a copy (SQLite) or mark the seed as spent (PostgreSQL: the next
// bench:scale seeds again). Issue 52, scope 3; figures in docs/deployment.md.
import { copyFileSync, rmSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { RequestLogMaintenance } from '../../src/billing/request-log-maintenance.js';
import { deleteRequestsBefore } from '../../src/billing/db/requests.js';
import { dayBound, dayMs } from '../../src/billing/db/request-log-partitions.js';
import { createStore } from '../../src/store/create-store.js';
import { systemClock } from '../../src/core/clock.js';

const { values } = parseArgs({
  options: {
    'postgres-url': { type: 'string' },
    schema: { type: 'string' },
    'sqlite-path': { type: 'string' },
    'retention-days': { type: 'string', default: '30' },
    'batch-rows': { type: 'string', default: '100' },
  },
});
const retentionDays = Number(values['retention-days']);
const say = (line: string) => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

if (values['postgres-url'] && values.schema) {
  const url = values['postgres-url'];
  const schema = values.schema;
  const size = async (client: pg.Client) =>
    (await client.query<{ bytes: string; rows: string; partitions: string }>(
      "select sum(pg_total_relation_size(relid))::text as bytes, (select count(*) from requests)::text as rows, (count(*) filter (where isleaf))::text as partitions from pg_partition_tree('requests')",
    )).rows[0];
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  await client.query('drop table if exists bench_scale_seed');
  const before = await size(client);
  const store = await createStore(url, { schema, poolSize: 2 });
  const maintenance = new RequestLogMaintenance({ store, clock: systemClock, logger: pino({ level: 'silent' }) }, { retentionDays, maxDropsPerRun: 1 });
  const drops: number[] = [];
  for (;;) {
    const at = performance.now();
    const run = await maintenance.runOnce();
    if (run.dropped.length === 0) break;
    drops.push(performance.now() - at);
  }
  const after = await size(client);
  drops.sort((left, right) => left - right);
  say(`postgres ${schema}, ${retentionDays} days kept: ${Number(before.rows).toLocaleString('en')} rows in ${before.partitions} partitions, ${mb(Number(before.bytes))}`);
  say(`  → ${Number(after.rows).toLocaleString('en')} rows in ${after.partitions} partitions, ${mb(Number(after.bytes))} (freed at once: a dropped partition's files go)`);
  say(`  ${drops.length} runs of one DETACH CONCURRENTLY + DROP each: median ${drops[Math.floor(drops.length / 2)]?.toFixed(0)} ms, worst ${drops.at(-1)?.toFixed(0)} ms (writers never wait on them)`);
  await store.close();
  await client.end();
}

if (values['sqlite-path']) {
  const copy = `${values['sqlite-path']}.retention-copy`;
  copyFileSync(values['sqlite-path'], copy);
  try {
    // As `serve` runs it: the write-ahead log checkpointed by a worker thread, not by the deleting connection.
    const store = await createStore(`sqlite:${copy}`, { backgroundCheckpoints: true });
    const raw = new Database(copy, { readonly: true });
    const count = () => (raw.prepare('select count(*) as n from requests').get() as { n: number }).n;
    const pages = () => raw.prepare("select (select sum(pgsize) from dbstat where name in (select name from sqlite_master where tbl_name = 'requests')) as used, (select page_count * page_size from pragma_page_count, pragma_page_size) as file").get() as { used: number; file: number };
    const rowsBefore = count();
    const sizeBefore = pages();
    const keepFrom = dayBound(Date.now() - retentionDays * dayMs);
    const batchRows = Number(values['batch-rows']);
    const batches: number[] = [];
    for (;;) {
      const at = performance.now();
      const deleted = await deleteRequestsBefore(store.db, keepFrom, batchRows);
      batches.push(performance.now() - at);
      if (deleted < batchRows) break;
    }
    const sizeAfter = pages();
    batches.sort((left, right) => left - right);
    const p = (q: number) => batches[Math.min(batches.length - 1, Math.floor(batches.length * q))].toFixed(1);
    say(`sqlite (a copy of ${values['sqlite-path']}), ${retentionDays} days kept: ${rowsBefore.toLocaleString('en')} rows, request log ${mb(sizeBefore.used)} of a ${mb(sizeBefore.file)} file`);
    say(`  → ${count().toLocaleString('en')} rows, request log ${mb(sizeAfter.used)}; the file stays ${mb(sizeAfter.file)} (freed pages are reused by new rows; VACUUM gives them back)`);
    say(`  ${batches.length} batches of ${batchRows} rows, each on the event loop: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, worst ${batches.at(-1)!.toFixed(1)} ms`);
    raw.close();
    await store.close();
    say(`  file on disk: ${mb(statSync(copy).size)}`);
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  }
}
