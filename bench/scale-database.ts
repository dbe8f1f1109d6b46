import Database from 'better-sqlite3';
import pg from 'pg';
import { readCpuMicros } from './process-stats.js';
import type { ScaleDialect } from './scale-sql.js';

/**
 * The seeder's own connection to the database the product migrated: plain SQL, no repository
 * functions of the product (those may change; the tables they write are what is measured).
 */
export interface ScaleDatabase {
  dialect: ScaleDialect;
  run(statement: string): Promise<void>;
  rows<T>(statement: string): Promise<T[]>;
  /** CPU microseconds the process doing the work has used (this one, or the PostgreSQL backend when it runs here), else null. */
  cpuMicros(): number | null;
  close(): Promise<void>;
}

/** SQLite: one connection, no journal and no fsync while seeding (the file is rebuilt if a seed is cut short). */
export function openSqliteForSeeding(path: string): ScaleDatabase {
  const db = new Database(path);
  db.pragma('busy_timeout = 10000');
  return {
    dialect: 'sqlite',
    run: async (statement) => void db.exec(statement),
    rows: async <T>(statement: string) => db.prepare(statement).all() as T[],
    cpuMicros: () => readCpuMicros(process.pid),
    close: async () => void db.close(),
  };
}

/** PostgreSQL: one client in `schema`, commits not waiting for the WAL flush (seeding only). */
export async function openPostgresForSeeding(url: string, schema: string): Promise<ScaleDatabase> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path="${schema}" -c synchronous_commit=off -c maintenance_work_mem=512MB` });
  await client.connect();
  const backend = Number((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid);
  return {
    dialect: 'postgres',
    run: async (statement) => void (await client.query(statement)),
    rows: async <T>(statement: string) => (await client.query(statement)).rows as T[],
    // A backend pid means something here only when the server runs on this machine.
    cpuMicros: () => (isLocal(url) ? readCpuMicros(backend) : null),
    close: () => client.end(),
  };
}

function isLocal(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === '' || host === 'localhost' || host === '127.0.0.1' || host === '::1';
}
