import type { Kysely } from 'kysely';

/**
 * Batch lines sent through a provider's batch API (contract §9, `pricing.batch_discount`):
 * `executor` is where the line runs, chosen once when the batch is validated (`engine`, or
 * `anthropic` for Anthropic's Message Batches; existing lines ran on the engine), `provider_batch_id` is the provider's batch the line went into (polled by the batch's task
 * until it ends, after a restart too), and `reservation_id` the line's durable reservation,
 * settled once from the provider's result. Both null for a line the gateway's engine runs.
 * Portable DDL (nullable columns, no rewrite).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('batch_lines').addColumn('executor', 'text', (column) => column.notNull().defaultTo('engine')).execute();
  await db.schema.alterTable('batch_lines').addColumn('provider_batch_id', 'text').execute();
  await db.schema.alterTable('batch_lines').addColumn('reservation_id', 'text').execute();
}
