import type { Kysely } from 'kysely';

/**
 * Indexes for the request log's filters. Each ends in `id`, so a filtered list is still one
 * index range read newest first (ids are time-ordered, and date filters are id ranges); the
 * unfiltered list and the key filter use the initial (account, id) and (account, key, id).
 * `/usage` of an ordinary key reads its own rollup rows by (account, key, day).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('requests_account_model_idx').on('requests').columns(['account_id', 'model', 'id']).execute();
  await db.schema.createIndex('requests_account_provider_idx').on('requests').columns(['account_id', 'provider', 'id']).execute();
  await db.schema.createIndex('requests_account_status_idx').on('requests').columns(['account_id', 'status', 'id']).execute();
  await db.schema.createIndex('usage_rollups_account_key_idx').on('usage_rollups').columns(['account_id', 'key_id', 'day']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['usage_rollups_account_key_idx', 'requests_account_status_idx', 'requests_account_provider_idx', 'requests_account_model_idx']) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
}
