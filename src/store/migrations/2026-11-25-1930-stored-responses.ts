import type { Kysely } from 'kysely';

/**
 * Responses kept for `previous_response_id`, `GET /v1/responses/{id}` and its input items
 * (`store: true`, the Responses API default): the items the model read, the Response object as
 * answered (its output and the effective request), owned by an account and the key that made
 * it, until `expires_at`. JSON in text columns on both dialects; `size` is their byte length,
 * held under the operator's per-response limit before insert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stored_responses')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('api_key_id', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('input_items', 'text', (column) => column.notNull())
    .addColumn('response', 'text', (column) => column.notNull())
    .addColumn('size', 'integer', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('stored_responses_expires_idx').on('stored_responses').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('stored_responses_expires_idx').ifExists().execute();
  await db.schema.dropTable('stored_responses').ifExists().execute();
}
