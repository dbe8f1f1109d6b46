import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema the store was opened in, when one was given. */
  schema?: string;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL schema to use (created if missing); tests give each suite its own. */
  schema?: string;
  poolSize?: number;
}

/**
 * Opens the database named by `DATABASE_URL`: `sqlite:PATH` (`sqlite::memory:` for a private
 * in-memory one) or `postgres://…`. Integers come back as exact values: SQLite in safe-integer
 * mode, PostgreSQL int8 parsed as BigInt.
 */
export async function createStore(url: string, options: StoreOptions = {}): Promise<Store> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got "${url.split(':')[0]}:…"`);
}

function openSqlite(path: string): Store {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = new SqliteDatabase(inMemory ? ':memory:' : path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  database.defaultSafeIntegers(true);
  cachePreparedStatements(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    dialect: 'sqlite',
    ping: () => ping(db),
    close: () => db.destroy(),
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
  if (options.schema) {
    const bootstrap = new pg.Client({ connectionString: url });
    await bootstrap.connect();
    try {
      await bootstrap.query(`create schema if not exists "${options.schema.replace(/"/g, '')}"`);
    } finally {
      await bootstrap.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 20,
    types,
    options: options.schema ? `-c search_path="${options.schema.replace(/"/g, '')}"` : undefined,
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', schema: options.schema, ping: () => ping(db), close: () => db.destroy() };
}

async function ping(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** Applies every pending migration; safe to run from several instances at once (Kysely takes a lock). */
export async function migrateToLatest(store: Store): Promise<void> {
  // Unordered: migrations written on parallel branches may land in any order.
  // Kysely looks its bookkeeping tables up across all schemas: name ours, so that suites running
  // side by side in separate schemas never take each other's migration lock.
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
    migrationTableSchema: store.schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
}
