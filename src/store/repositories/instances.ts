import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export async function registerInstance(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db
    .insertInto('instances')
    .values({ id, started_at: now, heartbeat_at: now })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ heartbeat_at: now }))
    .execute();
}

/** Answers false when the instance's row is gone (another instance declared it dead). */
export async function beatInstance(db: Kysely<Database>, id: string, now: string): Promise<boolean> {
  const result = await db.updateTable('instances').set({ heartbeat_at: now }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function removeInstance(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('instances').where('id', '=', id).execute();
}

/**
 * Declares dead the instances that stopped beating: their rows go (a later beat of theirs finds
 * none), and the reservations they held are then orphaned (`listOrphanedReservations`).
 */
export async function removeStaleInstances(db: Kysely<Database>, staleBefore: string): Promise<void> {
  await db.deleteFrom('instances').where('heartbeat_at', '<', staleBefore).execute();
}
