import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../database.js';

/**
 * A time on the instances' heartbeats: an ISO string of the caller's clock, or a reading of the
 * database's own clock (PostgreSQL) taken `agoMs` back. With several instances, heartbeats are
 * stamped and judged stale by the database's one clock, so no two instances' clocks are ever
 * compared and a skew between them cannot make a live instance look dead (docs/leases.md).
 */
export type HeartbeatTime = string | { databaseClockAgoMs: number };

/** The database clock's reading as the same ISO text `Date.toISOString()` writes (UTC, milliseconds). */
export function heartbeatTimeOf(at: HeartbeatTime): string | RawBuilder<string> {
  if (typeof at === 'string') return at;
  return sql<string>`to_char((clock_timestamp() - ${at.databaseClockAgoMs}::int8 * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

export async function registerInstance(db: Kysely<Database>, id: string, now: HeartbeatTime): Promise<void> {
  const at = heartbeatTimeOf(now);
  await db
    .insertInto('instances')
    .values({ id, started_at: at, heartbeat_at: at })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ heartbeat_at: at }))
    .execute();
}

/** Answers false when the instance's row is gone (another instance declared it dead). */
export async function beatInstance(db: Kysely<Database>, id: string, now: HeartbeatTime): Promise<boolean> {
  const result = await db.updateTable('instances').set({ heartbeat_at: heartbeatTimeOf(now) }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function removeInstance(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('instances').where('id', '=', id).execute();
}

/**
 * Declares dead the instances that stopped beating: their rows go (a later beat of theirs finds
 * none), and the reservations they held are then orphaned (`listOrphanedReservations`).
 */
export async function removeStaleInstances(db: Kysely<Database>, staleBefore: HeartbeatTime): Promise<void> {
  await db.deleteFrom('instances').where('heartbeat_at', '<', heartbeatTimeOf(staleBefore)).execute();
}
