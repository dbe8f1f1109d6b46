import type { Store } from '../store/create-store.js';
import type { BookOutcome, BooksBatch } from './plan-books.js';
import { writeBooksPostgres } from './write-books-postgres.js';
import { writeBooksSqlite } from './write-books-sqlite.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { keyPeriodsDue } from './roll-key-periods.js';

/** One group-committed batch (see `books.ts`) on whichever database the store has. */
export async function writeBooks(store: Pick<Store, 'sqlite' | 'pool'>, batch: BooksBatch): Promise<BookOutcome[]> {
  // The first batch of a new UTC day starts the keys' new limit periods first (issue 49): its
  // charges, and every later one, count in the new period. Any other batch: one comparison.
  const due = keyPeriodsDue(store, new Date(batch.createdAt));
  if (due) await due;
  // A batch rolled back for a conflict is written again at once, before its settlements hear of it.
  const pool = store.pool;
  if (pool) return retryOnConflict(() => writeBooksPostgres(pool, batch));
  const database = store.sqlite!;
  // A Kysely transaction holds SQLite's one connection across awaits (the task engine's);
  // a batch started now would join it. Wait for it to end.
  while (database.inTransaction) await new Promise((resolve) => setTimeout(resolve, 1));
  return writeBooksSqlite(database, batch);
}

/**
 * A fault of the data rather than of the database: PostgreSQL's class 22 (data exception: an
 * invalid byte sequence, a value out of range …). Retrying the same rows can never succeed, so
 * the writer isolates the row that causes it instead of retrying its batch forever.
 */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22');
}
