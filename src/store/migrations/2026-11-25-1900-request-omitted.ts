import type { Kysely } from 'kysely';

/**
 * What a request preferred and the endpoint that served it could not honour (an offered hosted
 * tool, a reasoning setting; contract §4), as a JSON array of the client's field names. Nullable:
 * most requests leave nothing out. Never filtered on, so no index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('omitted', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').dropColumn('omitted').execute();
}
