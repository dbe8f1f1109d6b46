import { sql, type Kysely } from 'kysely';

/**
 * Stored responses nobody paid for (a WebSocket warm-up, `generate: false`) are marked `free = 1`,
 * so that each account's free storage can be bounded in count and bytes before another one is
 * kept. The index is partial to those rows: a paid response's insert writes no extra B-tree, and
 * the bound's query (`free = 1`, stated so that SQLite uses the partial index) reads only them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stored_responses').addColumn('free', 'integer', (column) => column.notNull().defaultTo(0)).execute();
  await db.schema
    .createIndex('stored_responses_free_idx')
    .on('stored_responses')
    .columns(['account_id', 'expires_at'])
    .where(sql.ref('free'), '=', sql.lit(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('stored_responses_free_idx').ifExists().execute();
  await db.schema.alterTable('stored_responses').dropColumn('free').execute();
}
