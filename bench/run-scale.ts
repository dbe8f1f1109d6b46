import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, getPriority, loadavg, setPriority } from 'node:os';
import { join } from 'node:path';
import { childEnvironment, createScratchDirectory, findFreePort, spawnChild, waitForHttp } from './child-process.js';
import { databaseEnvironment, describeLocation, openScaleDatabase, prepareScaleDatabase, type ScaleLocation, type SeedMarker } from './prepare-scale-database.js';
import { listScaleReads, type ScaleFacts } from './scale-reads.js';
import { batchRowId, benchId, startOfDay, type ScaleShape } from './scale-sql.js';
import { timeScaleReads, type ReadTiming, type TimingSettings } from './time-scale-reads.js';

/** The issue's goals (54): every read p99 < 20 ms on both stores; the event loop never held ≥ 20 ms on SQLite. */
export const scaleGoals = { readP99Ms: 20, eventLoopMs: 20 };

export interface ScaleReadResult extends ReadTiming {
  /** p99 under the goal and every answer right. */
  pass: boolean;
}

export interface ScaleStoreResult {
  store: ScaleLocation['dialect'];
  database: string;
  seed: { reused: boolean; seededAt: string; seconds: number; cpuSeconds: number | null; phases: Record<string, number> };
  reads: ScaleReadResult[];
  /** The request log on disk (table and indexes; every partition on PostgreSQL). */
  requestLog: { rows: number; bytes: number; bytesPerMillionRows: number; partitions: number | null };
  goals: {
    readsP99: { limitMs: number; pass: boolean; failing: string[] };
    /** Judged on SQLite only (on PostgreSQL the queries do not run on the event loop); null there. */
    eventLoop: { limitMs: number; worstHealthMs: number; worstLoopDelayMs: number | null; pass: boolean } | null;
  };
}

const dayMs = 86_400_000;
/** `serve` applies migrations newer than the seed on start: on a big table that may take a while. */
const serveStartTimeoutMs = 30 * 60_000;

export interface ScaleOptions {
  root: string;
  shape: ScaleShape;
  /** The stores to measure, in order; a PostgreSQL location without a URL is skipped, with the reason. */
  locations: ScaleLocation[];
  reseed: boolean;
  timing: TimingSettings;
  /** Only the reads whose name starts with one of these (all when absent). */
  reads?: string[];
  say: (line: string) => void;
}

/** One run of the scale benchmark: every store measured, against the goals (written as JSON by format-scale-results.ts). */
export interface ScaleResults {
  startedAt: string;
  commit: string | null;
  /** The 1, 5 and 15 minute load averages: the machine may be shared. */
  machine: { cpus: number; node: string; loadAverage: { atStart: number[]; atEnd: number[] } };
  shape: Record<string, number>;
  settings: Record<string, number>;
  goals: { readP99Ms: number; eventLoopMs: number };
  stores: ScaleStoreResult[];
  /** Stores asked for but not measured, and why. */
  skipped: Record<string, string>;
  pass: boolean;
}

/** The whole benchmark: every store in turn, then the verdicts. */
export async function measureScale(options: ScaleOptions): Promise<ScaleResults> {
  const startedAt = new Date().toISOString();
  const load = () => loadavg().map((value) => Math.round(value * 100) / 100);
  const loadAtStart = load();
  const stores: ScaleStoreResult[] = [];
  const skipped: Record<string, string> = {};
  for (const location of options.locations) {
    if (location.dialect === 'postgres' && !location.postgresUrl) {
      skipped.postgres = 'no PostgreSQL: set BENCH_DATABASE_URL or pass --postgres-url';
      continue;
    }
    stores.push(await runScaleOnStore(options.root, location, options.shape, options));
  }
  return {
    startedAt,
    commit: readCommit(options.root),
    machine: { cpus: cpus().length, node: process.version, loadAverage: { atStart: loadAtStart, atEnd: load() } },
    shape: { ...options.shape },
    settings: { ...options.timing },
    goals: scaleGoals,
    stores,
    skipped,
    pass: stores.length > 0 && stores.every((store) => store.goals.readsP99.pass && (store.goals.eventLoop?.pass ?? true)),
  };
}

function readCommit(root: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** Seeds (or reuses) one store, starts `switchyard serve` on it and times every read through the API. */
export async function runScaleOnStore(root: string, location: ScaleLocation, shape: ScaleShape, options: { reseed: boolean; timing: TimingSettings; reads?: string[]; say: (line: string) => void }): Promise<ScaleStoreResult> {
  const { marker, reused } = await atLowPriority(() => prepareScaleDatabase(root, location, shape, options), options.say);
  if (reused) options.say(`${location.dialect}: reusing the seed of ${marker.seededAt} in ${describeLocation(location)} (--reseed to seed again)`);
  const facts = await readFacts(location, marker);
  const requestLog = await measureRequestLog(location, marker.shape.requestRows);
  options.say(`${location.dialect}: request log ${(requestLog.bytes / 1e6).toFixed(0)} MB for ${requestLog.rows.toLocaleString('en')} rows: ${(requestLog.bytesPerMillionRows / 1e6).toFixed(0)} MB per million rows${requestLog.partitions === null ? '' : `, ${requestLog.partitions} partitions`}`);
  const reads = listScaleReads(facts).filter((read) => !options.reads || options.reads.some((prefix) => read.name.startsWith(prefix)));
  const directory = await createScratchDirectory('switchyard-scale-');
  const adminToken = randomBytes(24).toString('base64url');
  const port = await findFreePort();
  const child = spawnChild('switchyard', process.execPath, [join(root, 'bin', 'switchyard.js'), 'serve'], {
    cwd: root,
    env: childEnvironment({ ...databaseEnvironment(location), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', SWITCHYARD_ADMIN_TOKEN: adminToken, SWITCHYARD_SHUTDOWN_DRAIN_MS: '0' }),
    logFile: join(directory, 'switchyard.log'),
  });
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/health`, child, serveStartTimeoutMs);
    options.say(`${location.dialect}: timing ${reads.length} reads through ${origin}`);
    const timings = await timeScaleReads(origin, { management: marker.managementKey, ordinary: marker.ordinaryKey, admin: adminToken }, reads, options.timing, options.say);
    return { ...judge(location, marker, reused, timings), requestLog };
  } finally {
    await child.stop(5000);
  }
}

/**
 * Seeding is heavy and the machine shared: it runs at nice 10 (so do the CLI children; PostgreSQL's
 * own processes do not). The measuring after it is one call at a time and must not queue behind
 * other work, so it goes back to the priority it had, where the system allows that.
 */
async function atLowPriority<T>(work: () => Promise<T>, say: (line: string) => void): Promise<T> {
  const before = getPriority();
  setPriority(Math.max(before, 10));
  try {
    return await work();
  } finally {
    try {
      setPriority(before);
    } catch {
      say(`(could not return to priority ${before} after seeding: measuring at nice 10)`);
    }
  }
}

/** The request log's size on disk: its table and indexes (SQLite: their pages, by `dbstat`; PostgreSQL: every partition's). */
async function measureRequestLog(location: ScaleLocation, rows: number): Promise<ScaleStoreResult['requestLog']> {
  const db = await openScaleDatabase(location);
  try {
    let bytes: number;
    let partitions: number | null = null;
    if (location.dialect === 'sqlite') {
      const [size] = await db.rows<{ bytes: number }>(
        "select sum(pgsize) as bytes from dbstat where name in (select name from sqlite_master where tbl_name = 'requests')",
      );
      bytes = Number(size.bytes);
    } else {
      const [size] = await db.rows<{ bytes: string; partitions: string }>(
        "select sum(pg_total_relation_size(relid))::text as bytes, (count(*) filter (where isleaf))::text as partitions from pg_partition_tree('requests')",
      );
      bytes = Number(size.bytes);
      partitions = Number(size.partitions);
    }
    return { rows, bytes, bytesPerMillionRows: Math.round((bytes / rows) * 1e6), partitions };
  } finally {
    await db.close();
  }
}

function judge(location: ScaleLocation, marker: SeedMarker, reused: boolean, timings: ReadTiming[]): Omit<ScaleStoreResult, 'requestLog'> {
  const reads = timings.map((timing) => ({ ...timing, pass: timing.p99Ms < scaleGoals.readP99Ms && timing.problem === null }));
  const worstHealthMs = Math.max(...reads.map((read) => read.worstHealthMs));
  const loopDelays = reads.flatMap((read) => (read.loopDelayMaxMs === null ? [] : [read.loopDelayMaxMs]));
  return {
    store: location.dialect,
    database: describeLocation(location),
    seed: { reused, seededAt: marker.seededAt, seconds: marker.seed.seconds, cpuSeconds: marker.seed.cpuSeconds ?? null, phases: marker.seed.phases },
    reads,
    goals: {
      readsP99: { limitMs: scaleGoals.readP99Ms, pass: reads.every((read) => read.pass), failing: reads.filter((read) => !read.pass).map((read) => read.name) },
      eventLoop:
        location.dialect === 'sqlite'
          ? { limitMs: scaleGoals.eventLoopMs, worstHealthMs, worstLoopDelayMs: loopDelays.length > 0 ? Math.max(...loopDelays) : null, pass: worstHealthMs < scaleGoals.eventLoopMs }
          : null,
    },
  };
}

/** What the reads look for and the answers they must give, read from the seeded tables. */
async function readFacts(location: ScaleLocation, marker: SeedMarker): Promise<ScaleFacts> {
  const { shape, anchor } = marker;
  const db = await openScaleDatabase(location);
  const today = startOfDay(Date.now());
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const sum = async (fromMs: number, keyId?: string) => {
    const rows = await db.rows<{ n: string | number | null }>(
      `select sum(requests) as n from usage_rollups where account_id = '${anchor.accountId}' and day >= '${day(fromMs)}' and day <= '${day(today)}'${keyId ? ` and key_id = '${keyId}'` : ''}`,
    );
    return Number(rows[0]?.n ?? 0);
  };
  try {
    const [middle] = await db.rows<{ id: string; name: string }>(`select id, name from accounts where name like '%@example.com' order by id limit 1 offset ${Math.floor(shape.accounts / 20)}`);
    const middleMs = anchor.nowMs - Math.floor((shape.days * dayMs) / 2);
    const [request] = await db.rows<{ id: string }>(`select id from requests where id >= '${benchId('req', middleMs, 0)}' order by id limit 1`);
    return {
      accountId: anchor.accountId,
      ordinaryKeyId: anchor.ordinaryKeyId,
      middleAccount: middle,
      requestId: request.id,
      expectedRequests: {
        year: await sum(today - 364 * dayMs),
        days30: await sum(today - 29 * dayMs),
        yearOrdinary: await sum(today - 364 * dayMs, anchor.ordinaryKeyId),
        days30Ordinary: await sum(today - 29 * dayMs, anchor.ordinaryKeyId),
      },
      nowMs: anchor.nowMs,
      accounts: shape.accounts,
      keys: shape.keys,
      models: shape.models,
      requestRows: shape.requestRows,
      batchRows: shape.batchRows,
      // The middle of the seeded files and batches, for a later page of each list.
      middleFileId: batchRowId('file', shape, anchor, Math.floor(shape.batchRows / 2)),
      middleBatchId: batchRowId('batch', shape, anchor, Math.floor(shape.batchRows / 8) * 4),
      middleMessageBatchId: batchRowId('batch', shape, anchor, Math.floor(shape.batchRows / 8) * 4 + 1),
    };
  } finally {
    await db.close();
  }
}
