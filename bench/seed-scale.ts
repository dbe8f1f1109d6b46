import { performance } from 'node:perf_hooks';
import type { ScaleDatabase } from './scale-database.js';
import { insertAccountsSql, insertBatchesSql, insertFilesSql, insertKeysSql, insertRequestsSql, insertRollupsSql, type ScaleAnchor, type ScaleShape } from './scale-sql.js';

/** Where the seconds of one seed went (each phase, and the whole). */
export interface SeedTimes {
  seconds: number;
  /** CPU seconds of the process that did the work (null when it cannot be read, e.g. a remote PostgreSQL): on a shared machine wall time mostly waits. */
  cpuSeconds: number | null;
  phases: Record<string, number>;
}

const seededTables = ['accounts', 'api_keys', 'usage_rollups_pending', 'requests', 'files', 'batches'];
/** Rows per statement: big enough that the statement overhead vanishes, small enough for steady progress. */
const chunkRows = 500_000;

/**
 * Seeds the product's tables (created by its own migrations) at `shape`. The secondary indexes
 * are dropped first and rebuilt from their own definitions at the end: one sort per index is
 * many times faster than maintaining nine indexes row by row.
 */
export async function seedScale(db: ScaleDatabase, shape: ScaleShape, anchor: ScaleAnchor, say: (line: string) => void): Promise<SeedTimes> {
  const started = performance.now();
  const cpuBefore = db.cpuMicros();
  const phases: Record<string, number> = {};
  const phase = async (name: string, work: () => Promise<void>) => {
    const at = performance.now();
    await work();
    phases[name] = Math.round((performance.now() - at) / 100) / 10;
    say(`  ${name}: ${phases[name]} s`);
  };
  if (db.dialect === 'sqlite') await db.run('pragma journal_mode = off; pragma synchronous = off; pragma cache_size = -1000000; pragma temp_store = memory');
  const indexes = await readSecondaryIndexes(db);
  for (const index of indexes) await db.run(`drop index "${index.name}"`);

  await phase(`accounts (${shape.accounts.toLocaleString('en')})`, () => insertChunks(db, shape.accounts, (from, to) => insertAccountsSql(db.dialect, shape, anchor, from, to), 'accounts', say));
  await phase(`keys (${shape.keys.toLocaleString('en')})`, () => (shape.keys > 2 ? db.run(insertKeysSql(db.dialect, shape, anchor)) : Promise.resolve()));
  const rollups = shape.days * shape.keys * shape.models;
  await phase(`usage rollups (${rollups.toLocaleString('en')})`, () => insertChunks(db, rollups, (from, to) => insertRollupsSql(db.dialect, shape, anchor, from, to), 'rollups', say));
  await phase(`request log (${shape.requestRows.toLocaleString('en')})`, () => insertChunks(db, shape.requestRows, (from, to) => insertRequestsSql(db.dialect, shape, anchor, from, to), 'requests', say));
  await phase(`files (${shape.batchRows.toLocaleString('en')})`, () => insertChunks(db, shape.batchRows, (from, to) => insertFilesSql(db.dialect, shape, anchor, from, to), 'files', say));
  await phase(`batches (${shape.batchRows.toLocaleString('en')})`, () => insertChunks(db, shape.batchRows, (from, to) => insertBatchesSql(db.dialect, shape, anchor, from, to), 'batches', say));
  await phase(`indexes (${indexes.length})`, async () => {
    for (const [position, index] of indexes.entries()) {
      const at = performance.now();
      // A partitioned table's index reads "ON ONLY requests" (the parent alone, left invalid):
      // made again over the whole table, it is built on every partition (the request log, issue 52).
      await db.run(index.sql.replace(' ON ONLY ', ' ON '));
      say(`    index ${position + 1} of ${indexes.length}: ${index.name}, ${((performance.now() - at) / 1000).toFixed(0)} s`);
    }
  });
  // What a long-lived table has anyway: planner statistics (and on PostgreSQL a visibility map).
  await phase('analyze', () => db.run(db.dialect === 'sqlite' ? 'analyze' : `vacuum analyze ${seededTables.join(', ')}`));
  if (db.dialect === 'sqlite') await db.run('pragma journal_mode = wal');
  const cpuAfter = db.cpuMicros();
  const cpuSeconds = cpuBefore === null || cpuAfter === null ? null : Math.round((cpuAfter - cpuBefore) / 100_000) / 10;
  return { seconds: Math.round((performance.now() - started) / 100) / 10, cpuSeconds, phases };
}

async function insertChunks(db: ScaleDatabase, total: number, statement: (from: number, to: number) => string, label: string, say: (line: string) => void): Promise<void> {
  const started = performance.now();
  for (let from = 0; from < total; from += chunkRows) {
    const to = Math.min(total, from + chunkRows) - 1;
    await db.run(statement(from, to));
    const seconds = (performance.now() - started) / 1000;
    if (to + 1 < total) say(`    ${label}: ${(to + 1).toLocaleString('en')} of ${total.toLocaleString('en')}, ${seconds.toFixed(0)} s, ${Math.round((to + 1) / seconds).toLocaleString('en')} rows/s`);
  }
}

/** The seeded tables' indexes that no constraint owns, with the statement that makes each. */
async function readSecondaryIndexes(db: ScaleDatabase): Promise<Array<{ name: string; sql: string }>> {
  const tables = seededTables.map((table) => `'${table}'`).join(', ');
  if (db.dialect === 'sqlite') return db.rows(`select name, sql from sqlite_master where type = 'index' and tbl_name in (${tables}) and sql is not null`);
  return db.rows(`select i.indexname as name, i.indexdef as sql from pg_indexes i
    where i.schemaname = current_schema() and i.tablename in (${tables})
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = current_schema()::regnamespace)`);
}
