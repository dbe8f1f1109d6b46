import { sql, type Kysely } from 'kysely';
import { isPostgres } from './is-postgres.js';
import type { OnlineIndex } from './online-index.js';

/**
 * Money that comes from outside (a Stripe Checkout Session, a refund, a dispute, a redemption
 * code, a sign-up bonus) must reach the ledger exactly once, however often and on however many
 * instances the news arrives (contract §7). The guard is a unique key, not a check-then-write:
 * `ledger_references` holds one row per external reference, inserted in the same transaction as
 * the ledger entry it names, so a second insert of the same reference conflicts and posts
 * nothing. A table of its own, rather than a unique index on `ledger_entries`, because that table
 * takes a row per charge: a unique index there would be written by every request and would have
 * to be built on the largest table before the first top-up could be taken.
 *
 * `ledger_entries.receipt_url` keeps the payment provider's receipt of a top-up, shown in the
 * transactions list. `ledger_entries_movements_idx` serves that list (an account's entries that
 * are not charges, newest first) as a partial index, so a charge writes nothing more; on
 * PostgreSQL it is built CONCURRENTLY after the migrator commits (`online-index.ts`).
 */
const movementsPredicate = "kind <> 'charge' and kind <> 'uncollected'";

export const onlineIndexes: OnlineIndex[] = [
  { name: 'ledger_entries_movements_idx', table: 'ledger_entries', definition: `(account_id, id) where ${movementsPredicate}` },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger_references')
    .ifNotExists()
    .addColumn('reference', 'text', (column) => column.primaryKey())
    .addColumn('ledger_entry_id', 'text', (column) => column.notNull())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.alterTable('ledger_entries').addColumn('receipt_url', 'text').execute();
  if (await isPostgres(db)) return;
  await sql`create index if not exists ledger_entries_movements_idx on ledger_entries (account_id, id) where ${sql.raw(movementsPredicate)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_entries_movements_idx').ifExists().execute();
  await db.schema.alterTable('ledger_entries').dropColumn('receipt_url').execute();
  await db.schema.dropTable('ledger_references').ifExists().execute();
}
