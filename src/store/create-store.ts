import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { fallbackPages, startWalCheckpointer } from './checkpoint-wal.js';
import { isDatabaseUnreachable, isDroppedMeanwhile } from './database-errors.js';
import { OutageEpisodes } from './log-outage-episodes.js';
import type { Database } from './database.js';
import { migrations, onlineIndexes } from './migrations/index.js';
import { buildOnlineIndexes, type OnlineIndexOutcome } from './migrations/online-index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * The driver under Kysely, for the money path (reserve, release, group-committed settlements),
   * which runs prepared statements without per-call query building. Exactly one is set.
   */
  sqlite?: SqliteDatabase.Database;
  pool?: pg.Pool;
  /** The PostgreSQL schema the store was opened in, when one was given. */
  schema?: string;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /**
   * Opens the pool's connections now (PostgreSQL; nothing to do on SQLite), so that a burst of
   * first requests does not start a database backend per connection while it waits.
   */
  openConnections(): Promise<void>;
  /**
   * True from the first failed call (or lost connection) of an outage until the database has
   * answered again for a while; never on SQLite. Costs nothing: no query is made.
   */
  isDown(): boolean;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL schema to use (created if missing); tests give each suite its own. */
  schema?: string;
  poolSize?: number;
  /** Overrides of the PostgreSQL timeouts (milliseconds); see `postgresTimeouts`. */
  timeouts?: Partial<PostgresTimeouts>;
  /** Where an outage of the database is told, once per episode (see `OutageEpisodes`). */
  logger?: Logger;
  /** How long the database must answer before an outage counts as over (default 2 s). */
  recoveryQuietMs?: number;
  /**
   * SQLite file: checkpoint the write-ahead log from a worker thread (`checkpoint-wal.ts`) rather
   * than on the connection that commits. Set by the server; short-lived commands leave it off.
   */
  backgroundCheckpoints?: boolean;
}

/**
 * Bounds on every PostgreSQL wait, so that a database that is down, refusing or silent turns
 * into a quick 503 rather than a hung request. `SWITCHYARD_PG_*_MS` override them (docs/configuration.md).
 */
export interface PostgresTimeouts {
  /** Opening a connection, and waiting for a free one in the pool. */
  connectMs: number;
  /** Client side: a query with no answer in this time fails and its connection is discarded. */
  queryMs: number;
  /** Server side: PostgreSQL cancels a statement running longer. */
  statementMs: number;
  /** Server side: a session idle inside a transaction this long is ended (a stuck client must not hold row locks). */
  idleInTransactionMs: number;
}

export function postgresTimeouts(env: NodeJS.ProcessEnv = process.env): PostgresTimeouts {
  const read = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  return {
    connectMs: read('SWITCHYARD_PG_CONNECT_TIMEOUT_MS', 3000),
    queryMs: read('SWITCHYARD_PG_QUERY_TIMEOUT_MS', 5000),
    statementMs: read('SWITCHYARD_PG_STATEMENT_TIMEOUT_MS', 4000),
    idleInTransactionMs: read('SWITCHYARD_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10000),
  };
}

/**
 * Opens the database named by `DATABASE_URL`: `sqlite:PATH` (`sqlite::memory:` for a private
 * in-memory one) or `postgres://…`. Integers come back as exact values: SQLite in safe-integer
 * mode, PostgreSQL int8 parsed as BigInt.
 */
export async function createStore(url: string, options: StoreOptions = {}): Promise<Store> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(':')[0]}:…"`);
}

function openSqlite(path: string, options: StoreOptions): Store {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = new SqliteDatabase(inMemory ? ':memory:' : path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const checkpointer = !inMemory && options.backgroundCheckpoints ? startWalCheckpointer(path, { logger: options.logger }) : undefined;
  if (checkpointer) database.pragma(`wal_autocheckpoint = ${fallbackPages}`);
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // Where SQLite keeps its temporary tables: every `… returning` statement (the books' take of a
  // reservation or lease, the exact path's release) collects its rows in one, and with the
  // default (a file) each run sets up a temporary database of its own, ~24 µs more than the same
  // update and a `select`; in memory the two cost the same (bench/README.md, "Session of
  // 2026-11-27, second"). The gateway's own queries sort at most a page of rows (paginated,
  // indexed), so nothing large is ever held there.
  database.pragma('temp_store = MEMORY');
  database.defaultSafeIntegers(true);
  cachePreparedStatements(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    dialect: 'sqlite',
    sqlite: database,
    ping: () => ping(db),
    openConnections: () => Promise.resolve(),
    isDown: () => false,
    close: async () => {
      await checkpointer?.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query anew; on the hot path (reserve, settle, key
 * lookup) preparing costs more than running. The statements differ only in their parameters,
 * so the compiled statement is kept per SQL text (bounded, oldest evicted first).
 */
function cachePreparedStatements(database: SqliteDatabase.Database, limit = 500): void {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, SqliteDatabase.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement;
  }) as typeof database.prepare;
}

async function openPostgres(url: string, options: StoreOptions): Promise<Store> {
  const int8 = 20;
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === int8 ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format ?? 'text'),
  };
  const timeouts = { ...postgresTimeouts(), ...options.timeouts };
  if (options.schema) {
    const bootstrap = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectMs });
    bootstrap.on('error', () => undefined);
    await bootstrap.connect();
    try {
      await bootstrap.query(`create schema if not exists "${options.schema.replace(/"/g, '')}"`);
    } finally {
      await bootstrap.end();
    }
  }
  const searchPath = options.schema ? ` -c search_path="${options.schema.replace(/"/g, '')}"` : '';
  const outages = new OutageEpisodes({
    logger: options.logger,
    dependency: 'database',
    effect: 'requests that need it are refused with 503 service_unavailable, and settlements wait in memory',
    quietMs: options.recoveryQuietMs,
  });
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    types,
    Client: watchedClient(outages),
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 5000,
    // Given here, `options` would replace PGOPTIONS from the environment: keep what that says too.
    options: `${process.env.PGOPTIONS ?? ''} -c statement_timeout=${timeouts.statementMs} -c idle_in_transaction_session_timeout=${timeouts.idleInTransactionMs}${searchPath}`.trim(),
  });
  // pg-pool listens for errors on idle clients only and removes that listener while a client is
  // checked out (by Kysely or the settlement writer): an 'error' event then, with no listener,
  // would crash the process. Every client gets a listener of its own for its whole life; the
  // failed query rejects, the client is discarded on release, and the pool opens fresh ones.
  // A connection lost while idle (a restart, a failover) starts the outage as a failed query does.
  const lost = (error: unknown) => {
    if (isDatabaseUnreachable(error)) outages.failed(error);
  };
  pool.on('connect', (client) => client.on('error', lost));
  pool.on('error', lost);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    pool,
    schema: options.schema,
    ping: () => ping(db),
    openConnections: () => openPoolConnections(pool),
    isDown: () => outages.down,
    close: () => {
      outages.close();
      return db.destroy();
    },
  };
}

/** Checks out as many connections as the pool may hold, runs a trivial query on each, and returns them. */
async function openPoolConnections(pool: pg.Pool): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: pool.options.max }, () => pool.connect()));
  const clients = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    await Promise.all(clients.map((client) => client.query('select 1')));
  } finally {
    for (const client of clients) client.release();
  }
  const failure = opened.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * The client of the pool. pg's client-side query timeout rejects the query but keeps the
 * connection, which then waits for the lost answer before anything else runs on it: after a
 * silent network every pooled connection would be stuck. This client destroys its connection
 * on such a timeout, so the pool drops it (it is no longer queryable) and connects afresh.
 * It also tells `outages` how every connection attempt and query went: every database call of
 * the process (Kysely's and the money path's) goes through it, so one warn line marks the
 * start of an outage whichever call met it first, and the first answers mark its end.
 */
function watchedClient(outages: OutageEpisodes): typeof pg.Client {
  const observe = (error: unknown) => {
    if (isDatabaseUnreachable(error)) outages.failed(error);
    // Any other error is an answer from a database that is up.
    else outages.answered();
  };
  return class WatchedClient extends pg.Client {
    override connect(...args: unknown[]): never {
      const connect = super.connect as unknown as (...a: unknown[]) => unknown;
      const callback = args[0] as ((error: unknown, ...rest: unknown[]) => void) | undefined;
      // The pool connects with a callback, others with the promise.
      if (callback) {
        return connect.call(this, (error: unknown, ...rest: unknown[]) => {
          if (error) observe(error);
          callback(error, ...rest);
        }) as never;
      }
      return (connect.call(this) as Promise<unknown>).catch((error: unknown) => {
        observe(error);
        throw error;
      }) as never;
    }

    override query(...args: unknown[]): never {
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function') {
        (result as Promise<unknown>).then(
          () => outages.answered(),
          (error: unknown) => {
            observe(error);
            if (error instanceof Error && error.message === 'Query read timeout') this.discard();
          },
        );
      }
      return result as never;
    }

    private discard(): void {
      const connection = (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection;
      connection?.stream?.destroy();
    }
  };
}

async function ping(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies every pending migration; safe to run from several instances at once (Kysely takes a
 * lock). On PostgreSQL it then builds the migrations' online indexes (CREATE INDEX CONCURRENTLY,
 * outside the migrator's transaction) and tells which it had to leave out.
 */
export async function migrateToLatest(store: Store): Promise<OnlineIndexOutcome> {
  if (!store.pool) {
    await runMigrator(store, store.db);
    return { built: [], skipped: [] };
  }
  // The pool's statement and query timeouts bound request-path queries (a pathological read must
  // not pile up); a migration or an index build on a large table legitimately runs longer, so
  // they run on a connection of their own without either.
  const maintenance = new pg.Pool({
    ...store.pool.options,
    max: 1,
    query_timeout: undefined,
    options: String(store.pool.options.options ?? '').replace(/-c statement_timeout=\d+/, '-c statement_timeout=0'),
  });
  maintenance.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: maintenance }) });
  try {
    await runMigrator(store, db);
    return await buildOnlineIndexes(maintenance, onlineIndexes);
  } finally {
    await db.destroy();
  }
}

async function runMigrator(store: Store, db: Kysely<Database>): Promise<void> {
  // Unordered: migrations written on parallel branches may land in any order.
  // Kysely looks its bookkeeping tables up across all schemas: name ours, so that suites running
  // side by side in separate schemas never take each other's migration lock.
  // Without a schema of ours (PGOPTIONS or the role's search_path chose it), name the current one.
  const schema = store.schema ?? (store.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
    migrationTableSchema: schema,
  });
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    const failed = results?.find((result) => result.status === 'Error');
    // Kysely finds its bookkeeping tables by listing the tables of every schema, which fails when
    // another schema, table or column of the database is dropped while the list is read
    // (PostgreSQL resolves the names it checks by their latest state). That happens before any
    // migration runs and is not ours to fix: try again.
    if (attempt < 10 && failed === undefined && isDroppedMeanwhile(error)) continue;
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
}

