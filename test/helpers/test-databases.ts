import pg from 'pg';

/**
 * The databases every store-backed suite runs against: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL is set. A skipped PostgreSQL run is said out loud, once per suite.
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  url: string;
}

export function testDatabases(): TestDatabase[] {
  const databases: TestDatabase[] = [{ name: 'sqlite', url: 'sqlite::memory:' }];
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres) databases.push({ name: 'postgres', url: postgres });
  else process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');
  return databases;
}

export function uniqueSchemaName(): string {
  return `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/** Drops a schema a test made in the PostgreSQL database at `url`, with everything in it. */
export async function dropTestSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists "${schema}" cascade`);
  await client.end();
}

/**
 * A PostgreSQL database of a test's own on the server at `url`, for figures that PostgreSQL keeps
 * per database (`pg_stat_database.deadlocks`): a schema would share them with every other suite.
 */
export async function createTestDatabase(url: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    name,
    url: own.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * PostgreSQL's count of deadlocks detected in database `name`. Sessions report their statistics
 * when they end or go idle (at most once a second), so stop the processes first, and this waits a
 * moment and reads a fresh snapshot.
 */
export async function countDeadlocks(url: string, name: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ deadlocks: string }>('select deadlocks::text from pg_stat_database where datname = $1', [name]);
    return Number(result.rows[0]?.deadlocks ?? 0);
  } finally {
    await client.end();
  }
}
