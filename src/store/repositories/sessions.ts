import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: string;
  lastUsedAt: string;
  userAgent: string | null;
  ip: string | null;
}

type SessionRow = { id: string; user_id: string; created_at: string; last_used_at: string; user_agent: string | null; ip: string | null };
const columns = ['id', 'user_id', 'created_at', 'last_used_at', 'user_agent', 'ip'] as const;

function toSession(row: SessionRow): SessionRecord {
  return { id: row.id, userId: row.user_id, createdAt: row.created_at, lastUsedAt: row.last_used_at, userAgent: row.user_agent, ip: row.ip };
}

export async function insertSession(db: Kysely<Database>, session: SessionRecord & { tokenHash: string }): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: session.id,
      token_hash: session.tokenHash,
      user_id: session.userId,
      created_at: session.createdAt,
      last_used_at: session.lastUsedAt,
      user_agent: session.userAgent,
      ip: session.ip,
    })
    .execute();
}

export async function findSessionByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<SessionRecord | undefined> {
  const row = await db.selectFrom('sessions').select(columns).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && toSession(row);
}

export async function touchSession(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function deleteSessionByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends one of the user's sessions; false when the user has no session of that id. */
export async function deleteUserSession(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The user's sessions used since `since`, most recently used first. */
export async function listUserSessions(db: Kysely<Database>, userId: string, since: string): Promise<SessionRecord[]> {
  const rows = await db.selectFrom('sessions').select(columns).where('user_id', '=', userId).where('last_used_at', '>=', since).orderBy('last_used_at', 'desc').limit(500).execute();
  return rows.map(toSession);
}

/**
 * Deletes sessions not used since `before` (30 days of disuse end a session), at most `limit` of
 * them, oldest first, so that one sign-in never carries a large clean-up.
 */
export async function deleteStaleSessions(db: Kysely<Database>, before: string, limit: number): Promise<void> {
  const stale = db.selectFrom('sessions').select('id').where('last_used_at', '<', before).orderBy('last_used_at').limit(limit);
  await db.deleteFrom('sessions').where('id', 'in', stale).execute();
}
