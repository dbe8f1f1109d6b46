import type { Kysely } from 'kysely';

/**
 * The end-user id a client sent with a request (`metadata.user_id`, `user`, `safety_identifier`),
 * so an operator can tell whose traffic a key carried. Nullable: most requests carry none. The
 * partial index serves `GET /requests?end_user=` and costs rows without an end user nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('end_user', 'text').execute();
  await db.schema
    .createIndex('requests_end_user_idx')
    .on('requests')
    .columns(['account_id', 'end_user', 'id'])
    .where((eb) => eb('end_user', 'is not', null))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('requests_end_user_idx').ifExists().execute();
  await db.schema.alterTable('requests').dropColumn('end_user').execute();
}
