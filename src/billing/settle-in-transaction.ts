import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import type { Store } from '../store/create-store.js';
import { prepareBooksStatements } from './db/books-sqlite.js';
import { runInTransaction } from './db/books-postgres.js';
import type { BookOutcome, BooksBatch } from './plan-books.js';
import { writeBooksWith } from './write-books-postgres.js';
import { writeBooksWithStatements } from './write-books-sqlite.js';

/**
 * The books' one settle rule (`plan-books.ts`, `allocate-charges.ts`) inside a transaction the
 * caller holds, for a settlement that must commit with another change (a task's move to its
 * terminal state): the same statements as the group-committed batches, on the caller's
 * connection. On SQLite the Kysely transaction holds the one connection, so the prepared
 * statements run inside it.
 */
export function settleInTransaction(store: Pick<Store, 'pool' | 'sqlite'>, trx: Kysely<Database>, batch: BooksBatch): Promise<BookOutcome[]> {
  if (store.pool) return writeBooksWith(runInTransaction(trx), batch);
  return Promise.resolve(writeBooksWithStatements(prepareBooksStatements(store.sqlite!), batch));
}
