import type { Kysely } from 'kysely';

/**
 * Links a task to the request that created it (the `x-request-id` of `POST /videos`, which is
 * also its request log row), and fixes its deadline at creation: the engine fails and releases a
 * task still unfinished at `expires_at`, whatever the configuration says later.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('request_id', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('expires_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('expires_at').execute();
  await db.schema.alterTable('tasks').dropColumn('request_id').execute();
}
