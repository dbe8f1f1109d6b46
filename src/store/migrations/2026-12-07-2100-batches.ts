import type { Kysely } from 'kysely';

/**
 * Batches (contract §9, issue 51): uploaded `files` (their bytes on disk, the row says where),
 * `batches` (OpenAI's batch object and its live counts) and `batch_lines` (one row per line of the
 * input file: its request, state and answer), so that every read is bounded and indexed — the
 * runner claims the next pending lines by `(batch_id, status, line_no)`, the output file is written
 * by `(batch_id, line_no)` in chunks — and a restart finds every line where it was. A request log
 * row names the batch its line belongs to (`requests.batch_id`, nullable: live requests have none;
 * the partial index costs them nothing). Portable DDL: on PostgreSQL the column and the index are
 * added to the partitioned `requests` and reach every partition.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('purpose', 'text', (column) => column.notNull())
    .addColumn('filename', 'text', (column) => column.notNull())
    .addColumn('bytes', 'bigint', (column) => column.notNull())
    .addColumn('line_count', 'integer', (column) => column.notNull())
    .addColumn('storage_key', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('files_account_idx').on('files').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('key_id', 'text', (column) => column.notNull())
    .addColumn('endpoint', 'text', (column) => column.notNull())
    .addColumn('input_file_id', 'text', (column) => column.notNull())
    .addColumn('completion_window', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('metadata', 'text')
    .addColumn('errors', 'text')
    .addColumn('total', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('completed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('output_file_id', 'text')
    .addColumn('error_file_id', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('in_progress_at', 'text')
    .addColumn('finalizing_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('expired_at', 'text')
    .addColumn('cancelling_at', 'text')
    .addColumn('cancelled_at', 'text')
    .execute();
  await db.schema.createIndex('batches_account_idx').on('batches').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('batch_lines')
    .addColumn('batch_id', 'text', (column) => column.notNull())
    .addColumn('line_no', 'integer', (column) => column.notNull())
    .addColumn('custom_id', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('body', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('request_id', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('batch_lines_pk', ['batch_id', 'line_no'])
    .execute();
  await db.schema.createIndex('batch_lines_status_idx').on('batch_lines').columns(['batch_id', 'status', 'line_no']).execute();

  await db.schema.alterTable('requests').addColumn('batch_id', 'text').execute();
  await db.schema
    .createIndex('requests_batch_idx')
    .on('requests')
    .columns(['batch_id', 'id'])
    .where((eb) => eb('batch_id', 'is not', null))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('requests_batch_idx').ifExists().execute();
  await db.schema.alterTable('requests').dropColumn('batch_id').execute();
  await db.schema.dropTable('batch_lines').ifExists().execute();
  await db.schema.dropTable('batches').ifExists().execute();
  await db.schema.dropTable('files').ifExists().execute();
}
