import type { Kysely } from 'kysely';

/**
 * Which running instance holds each reservation, and a heartbeat per instance, so that the
 * reservations of an instance that died (kill -9, power loss) are released within seconds of
 * its heartbeat stopping instead of waiting for their time bound.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('instances')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('heartbeat_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.alterTable('reservations').addColumn('instance_id', 'text').execute();
  await db.schema.createIndex('reservations_instance_idx').on('reservations').column('instance_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('reservations_instance_idx').execute();
  await db.schema.alterTable('reservations').dropColumn('instance_id').execute();
  await db.schema.dropTable('instances').execute();
}
