import { sql, type Kysely } from 'kysely';

/** Whether a migration runs on PostgreSQL (SQLite has no `version()`): for PostgreSQL-only steps. */
export async function isPostgres(db: Kysely<unknown>): Promise<boolean> {
  try {
    await sql`select version()`.execute(db);
    return true;
  } catch {
    return false;
  }
}
