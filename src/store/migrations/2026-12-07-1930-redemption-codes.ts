import type { Kysely } from 'kysely';

/**
 * Redemption codes (contract §7). A batch holds what the operator asked for; a code is kept only
 * as the SHA-256 of its normalized text, so a copy of the database redeems nothing. A code is
 * spent by one conditional UPDATE (`redeemed_at is null`), so two instances never both spend it.
 *
 * The brute-force limit must hold across instances, so it lives here, not in memory:
 * `redemption_guards` has one row per account that has tried a code, upserted first in every
 * attempt's transaction so that an account's attempts run one at a time (the upsert takes the
 * row's lock on PostgreSQL; SQLite has one writer); `redemption_failures` keeps the wrong
 * attempts of the last ten minutes. A failure is written only while the account is under the
 * limit and older ones are deleted in the same transaction, so an account holds at most five rows
 * however hard it is hammered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('redemption_batches')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('count', 'integer', (column) => column.notNull())
    .addColumn('note', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('redemption_codes')
    .addColumn('hash', 'text', (column) => column.primaryKey())
    .addColumn('batch_id', 'text', (column) => column.notNull().references('redemption_batches.id'))
    .addColumn('redeemed_at', 'text')
    .addColumn('redeemed_account_id', 'text')
    .execute();
  // Counts of redeemed codes per batch read this index alone.
  await db.schema.createIndex('redemption_codes_batch_idx').on('redemption_codes').columns(['batch_id', 'redeemed_at']).execute();
  await db.schema
    .createTable('redemption_guards')
    .addColumn('account_id', 'text', (column) => column.primaryKey())
    .addColumn('last_attempt_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('redemption_failures')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('redemption_failures_account_idx').on('redemption_failures').columns(['account_id', 'at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('redemption_failures').ifExists().execute();
  await db.schema.dropTable('redemption_guards').ifExists().execute();
  await db.schema.dropTable('redemption_codes').ifExists().execute();
  await db.schema.dropTable('redemption_batches').ifExists().execute();
}
