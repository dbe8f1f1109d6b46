import type { Kysely } from 'kysely';

/**
 * The audit log (contract §8): one row per change of keys, limits, members, alerts, sessions and
 * money, never updated or deleted by the API. Ids grow with time (`createId('aud')`), so
 * (account_id, id) pages an account's entries newest first by index. Portable DDL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .ifNotExists()
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('at', 'text', (column) => column.notNull())
    .addColumn('actor_type', 'text', (column) => column.notNull())
    .addColumn('actor_id', 'text', (column) => column.notNull())
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target', 'text')
    .addColumn('ip', 'text')
    .addColumn('details', 'text', (column) => column.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('audit_entries_account_idx').ifNotExists().on('audit_entries').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_entries').ifExists().execute();
}
