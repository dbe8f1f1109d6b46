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
