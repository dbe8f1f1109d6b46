import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/database.js';

/**
 * Makes an instance look silent for `silentMs`: its heartbeat row says it last beat that long
 * ago. On PostgreSQL heartbeats are stamped and judged by the database's clock, so a sweeper
 * with a clock of its own set ahead no longer makes a live instance look dead; a test of what
 * happens to a dead (or paused) instance says so in its row, as a real silence would.
 */
export async function backdateHeartbeat(db: Kysely<Database>, instanceId: string, silentMs: number): Promise<void> {
  const result = await db
    .updateTable('instances')
    .set({ heartbeat_at: new Date(Date.now() - silentMs).toISOString() })
    .where('id', '=', instanceId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new Error(`instance ${instanceId} has no heartbeat row to backdate`);
}
