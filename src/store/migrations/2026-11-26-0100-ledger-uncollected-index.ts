import { sql, type Kysely } from 'kysely';

/**
 * `ledger_entries_account_idx` (account_id, created_at) was written by every charge, yet the only
 * queries that read `ledger_entries` by account or in time order ask for the `uncollected`
 * entries (`sumUncollected`, `listUncollected`, `sumAllUncollected`; `billing/db/ledger.ts`,
 * `operational-counts.ts`): the same index, partial to those rare entries, serves all three (and
 * no longer scans an account's charges to find them) and costs a charge or a credit nothing. On
 * SQLite that is one B-tree fewer written in every settlement batch's commit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('ledger_entries_uncollected_idx')
    .ifNotExists()
    .on('ledger_entries')
    .columns(['account_id', 'created_at'])
    .where(sql.ref('kind'), '=', sql.lit('uncollected'))
    .execute();
  await db.schema.dropIndex('ledger_entries_account_idx').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ledger_entries_account_idx').ifNotExists().on('ledger_entries').columns(['account_id', 'created_at']).execute();
  await db.schema.dropIndex('ledger_entries_uncollected_idx').ifExists().execute();
}
