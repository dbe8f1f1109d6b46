import type { Kysely } from 'kysely';

/**
 * Messenger link codes: one pending code per account, stored as its SHA-256 only. And a chat
 * links to at most one account, so one Telegram user cannot unlock free models for many
 * accounts (admin links carry no external id; NULLs never collide in a unique index).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('link_codes')
    .addColumn('account_id', 'text', (column) => column.primaryKey().references('accounts.id'))
    .addColumn('code_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('messenger_links_external_idx').on('messenger_links').columns(['messenger', 'external_id']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messenger_links_external_idx').ifExists().execute();
  await db.schema.dropTable('link_codes').ifExists().execute();
}
