import { sql, type Kysely } from 'kysely';

/**
 * Which API made a batch (issue 51): `batch` (OpenAI's `/v1/batches`) or `message_batch`
 * (Anthropic's `/v1/messages/batches`, ids `msgbatch_…`), so that each list walks the index
 * `(account_id, kind, id)` over its own batches only, however many of the other kind the account
 * has (before, `GET /v1/batches` filtered the Message Batches out while walking `(account_id, id)`).
 * Backfilled from the id prefix. Portable DDL; the table is small next to the request log, so the
 * index is built in the migration on both stores.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('batches').addColumn('kind', 'text', (column) => column.notNull().defaultTo('batch')).execute();
  await sql`update batches set kind = 'message_batch' where id like 'msgbatch%'`.execute(db);
  await db.schema.createIndex('batches_account_kind_idx').on('batches').columns(['account_id', 'kind', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('batches_account_kind_idx').execute();
  await db.schema.alterTable('batches').dropColumn('kind').execute();
}
