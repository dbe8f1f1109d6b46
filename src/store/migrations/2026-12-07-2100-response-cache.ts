import type { Kysely } from 'kysely';

/**
 * The response cache (contract §9, src/cache/README.md).
 *
 * - `requests.cache_hit`: 1 on the row of a request the cache answered. A column added with a
 *   constant default: on PostgreSQL the partitioned parent passes it to every partition, and
 *   neither dialect rewrites the table.
 * - `api_keys.cache`: 1 when the key caches every request unless it says `x-switchyard-cache: off`;
 *   null (the default) when it caches only the requests that say `on`.
 * - `response_cache`: the entries when there is no Redis (`REDIS_URL`): the SHA-256 key (which
 *   folds in the account), the account (read back and compared: never served to another), the
 *   answer as JSON, its cost, and when it was stored and expires (epoch ms). `expires_at` is
 *   indexed for the sweep, which deletes expired rows in small batches.
 * - `cache_savings`: per account, day and key ('' for none), the hits and what they saved
 *   (nano-USD: the stored cost minus what the hit was charged), for `/usage`.
 * Portable DDL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('cache_hit', 'integer', (column) => column.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('api_keys').addColumn('cache', 'integer').execute();
  await db.schema
    .createTable('response_cache')
    .ifNotExists()
    .addColumn('key', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('entry', 'text', (column) => column.notNull())
    .addColumn('stored_at', 'bigint', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('response_cache_expires_at').ifNotExists().on('response_cache').column('expires_at').execute();
  await db.schema
    .createTable('cache_savings')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text', (column) => column.notNull())
    .addColumn('hits', 'bigint', (column) => column.notNull())
    .addColumn('saved', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('cache_savings_pk', ['account_id', 'day', 'key_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cache_savings').ifExists().execute();
  await db.schema.dropTable('response_cache').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('cache').execute();
  await db.schema.alterTable('requests').dropColumn('cache_hit').execute();
}
