import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { childEnvironment } from './child-process.js';
import { openPostgresForSeeding, openSqliteForSeeding, type ScaleDatabase } from './scale-database.js';
import type { ScaleAnchor, ScaleDialect, ScaleShape } from './scale-sql.js';
import { seedScale, type SeedTimes } from './seed-scale.js';

const execFileAsync = promisify(execFile);
/** Bumped whenever the seed's rows change, so that an older cache is seeded again. */
const seedVersion = 4;
const markerTable = 'bench_scale_seed';

/** Where one store's seeded database lives, and how `switchyard` reaches it. */
export interface ScaleLocation {
  dialect: ScaleDialect;
  /** SQLite: the cache file. */
  sqlitePath?: string;
  /** PostgreSQL: the server and the schema the seed lives in. */
  postgresUrl?: string;
  schema?: string;
}

/** What the marker row keeps: enough to measure a seeded database again without seeding it. */
export interface SeedMarker {
  version: number;
  shape: ScaleShape;
  anchor: ScaleAnchor;
  managementKey: string;
  ordinaryKey: string;
  seededAt: string;
  seed: SeedTimes;
}

/** The environment that points `switchyard` (the CLI and `serve`) at the location. */
export function databaseEnvironment(location: ScaleLocation): Record<string, string> {
  if (location.dialect === 'sqlite') return { DATABASE_URL: `sqlite:${location.sqlitePath}` };
  return { DATABASE_URL: location.postgresUrl!, PGOPTIONS: `-c search_path=${location.schema}` };
}

export function openScaleDatabase(location: ScaleLocation): Promise<ScaleDatabase> {
  return location.dialect === 'sqlite' ? Promise.resolve(openSqliteForSeeding(location.sqlitePath!)) : openPostgresForSeeding(location.postgresUrl!, location.schema!);
}

/**
 * The seeded database at `location`: the one a previous run left (its marker row names the same
 * shape and seed version), or a new one. A new one starts empty; the product's own CLI makes
 * the schema (its migrations), the big account and its two real keys; then the seed fills the
 * tables with SQL and writes the marker last, so a seed cut short is never taken for a finished one.
 */
export async function prepareScaleDatabase(root: string, location: ScaleLocation, shape: ScaleShape, options: { reseed: boolean; say: (line: string) => void }): Promise<{ marker: SeedMarker; reused: boolean }> {
  const found = options.reseed ? null : await readMarker(location);
  if (found && found.version === seedVersion && JSON.stringify(found.shape) === JSON.stringify(shape)) return { marker: found, reused: true };
  await wipe(location);
  options.say(`${location.dialect}: seeding ${describeLocation(location)} (nice 10)…`);
  // The CLI's migrations list every schema's tables: on a shared server next to 10M-row seeds that
  // can outlast the request-path statement timeout, which is not what is measured here.
  const environment = childEnvironment({ ...databaseEnvironment(location), SWITCHYARD_PG_STATEMENT_TIMEOUT_MS: '120000' });
  const cli = async (args: string[], timeout = 300_000) => {
    const { stdout } = await execFileAsync(process.execPath, [join(root, 'bin', 'switchyard.js'), 'admin', ...args], { cwd: root, env: environment, timeout, maxBuffer: 1 << 20 });
    return JSON.parse(stdout) as { data: { id: string } & Record<string, unknown>; key: string };
  };
  const created = await cli(['create-account', '--name', `Scale bench (${shape.keys} keys)`, '--credits', '1000000']);
  const ordinary = await cli(['create-key', created.data.id, '--name', 'ordinary']);
  const db = await openScaleDatabase(location);
  try {
    const management = await db.rows<{ id: string }>(`select id from api_keys where account_id = '${created.data.id}' and management = 1`);
    const anchor: ScaleAnchor = { accountId: created.data.id, managementKeyId: management[0].id, ordinaryKeyId: ordinary.data.id, nowMs: Date.now() };
    // A log that lived through its days is partitioned by day (issue 52): the seed's days go to
    // partitions of their own, as they would have, rather than all into the one a conversion keeps.
    if (location.dialect === 'postgres') await cli(['request-log-maintenance', '--empty-log-from', new Date(anchor.nowMs - (shape.days + 1) * 86_400_000).toISOString().slice(0, 10)]);
    const seed = await seedScale(db, shape, anchor, options.say);
    // The report reads summaries the books keep beside the rollups. The seeded rollups are where
    // an upgrade leaves those the summaries do not hold yet; the product's own backfill (the one
    // `serve` runs in the background) moves them, through its CLI, and waits until it is done.
    const at = performance.now();
    const backfilled = await cli(['backfill-usage'], 4 * 3600_000);
    await db.run(location.dialect === 'sqlite' ? 'analyze' : 'vacuum analyze usage_rollups, usage_summaries, usage_rollups_pending');
    seed.phases['usage summaries'] = Math.round((performance.now() - at) / 100) / 10;
    seed.seconds = Math.round((seed.seconds + seed.phases['usage summaries']) * 10) / 10;
    options.say(`  usage summaries: ${seed.phases['usage summaries']} s (${JSON.stringify(backfilled.data)})`);
    const marker: SeedMarker = { version: seedVersion, shape, anchor, managementKey: created.key, ordinaryKey: ordinary.key, seededAt: new Date().toISOString(), seed };
    await db.run(`create table ${markerTable} (id text primary key, value text not null)`);
    await db.run(`insert into ${markerTable} (id, value) values ('seed', '${JSON.stringify(marker).replace(/'/g, "''")}')`);
    options.say(`${location.dialect}: seeded in ${seed.seconds} s`);
    return { marker, reused: false };
  } finally {
    await db.close();
  }
}

export function describeLocation(location: ScaleLocation): string {
  return location.dialect === 'sqlite' ? location.sqlitePath! : `schema ${location.schema}`;
}

async function readMarker(location: ScaleLocation): Promise<SeedMarker | null> {
  if (location.dialect === 'sqlite' && !existsSync(location.sqlitePath!)) return null;
  if (location.dialect === 'postgres' && !(await schemaExists(location))) return null;
  const db = await openScaleDatabase(location);
  try {
    const rows = await db.rows<{ value: string }>(`select value from ${markerTable} where id = 'seed'`).catch(() => []);
    return rows.length === 1 ? (JSON.parse(rows[0].value) as SeedMarker) : null;
  } finally {
    await db.close();
  }
}

async function withAdmin<T>(location: ScaleLocation, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: location.postgresUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function schemaExists(location: ScaleLocation): Promise<boolean> {
  return withAdmin(location, async (client) => (await client.query('select 1 from pg_namespace where nspname = $1', [location.schema])).rowCount === 1);
}

/** Removes the location's database (the cache file, or the schema) and makes an empty one. */
export async function wipe(location: ScaleLocation, recreate = true): Promise<void> {
  if (location.dialect === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${location.sqlitePath}${suffix}`, { force: true });
    if (recreate) mkdirSync(dirname(location.sqlitePath!), { recursive: true });
    return;
  }
  await withAdmin(location, async (client) => {
    await client.query(`drop schema if exists "${location.schema}" cascade`);
    if (recreate) await client.query(`create schema "${location.schema}"`);
  });
}
