import type { Kysely } from 'kysely';

/**
 * The hosted tools the gateway ran for a request (contract §4a): how many web searches it
 * charged, and what they cost (nano-USD) within the row's `cost`, so that `/requests/{id}` can
 * show the cost broken down. Nullable: most requests run none. Never filtered on, so no index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('web_search_requests', 'integer').execute();
  await db.schema.alterTable('requests').addColumn('tool_cost', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').dropColumn('tool_cost').execute();
  await db.schema.alterTable('requests').dropColumn('web_search_requests').execute();
}
