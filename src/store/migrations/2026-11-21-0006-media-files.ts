import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Images the gateway serves itself (`response_format: "url"`), owned by an account and kept
 * until `expires_at`. The bytes are a binary column: `bytea` on PostgreSQL, `blob` on SQLite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  await db.schema
    .createTable('media_files')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('request_id', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('size', 'integer', (column) => column.notNull())
    .addColumn('data', binary, (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('media_files_expires_idx').on('media_files').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('media_files_expires_idx').ifExists().execute();
  await db.schema.dropTable('media_files').ifExists().execute();
}
