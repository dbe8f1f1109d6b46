import type { AppContext } from '../app-context.js';
import { deleteSessionByTokenHash, deleteStaleSessions, findSessionByTokenHash, insertSession, touchSession, type SessionRecord } from '../store/repositories/sessions.js';
import { createSecret, hashSecret } from './session-secrets.js';

/** A session ends after 30 days without use (contract §7). */
export const sessionIdleMs = 30 * 24 * 3600_000;
/** `last_used_at` is written at most this often, not on every request. */
const touchIntervalMs = 60_000;

type SessionContext = Pick<AppContext, 'store' | 'clock' | 'createId'>;

/**
 * Starts a new session for a user who has just proved who they are, and answers its token (for
 * the cookie). Always a new id and token: a cookie the browser brought along (perhaps planted
 * by someone else) is ended, never promoted to the signed-in session.
 */
export async function startSession(context: SessionContext, userId: string, client: { userAgent?: string; ip?: string; previousToken?: string }): Promise<string> {
  const { db } = context.store;
  const now = context.clock.now();
  const token = createSecret();
  if (client.previousToken !== undefined) await deleteSessionByTokenHash(db, hashSecret(client.previousToken));
  // Sessions of people who never came back would stay for ever: each sign-in removes a few.
  await deleteStaleSessions(db, new Date(now.getTime() - sessionIdleMs).toISOString(), 100);
  await insertSession(db, {
    id: context.createId('ses'),
    tokenHash: hashSecret(token),
    userId,
    createdAt: now.toISOString(),
    lastUsedAt: now.toISOString(),
    userAgent: client.userAgent?.slice(0, 500) ?? null,
    ip: client.ip ?? null,
  });
  return token;
}

/** The live session a cookie token names, or undefined (unknown, ended, or idle 30 days). Notes its use. */
export async function findLiveSession(context: Pick<AppContext, 'store' | 'clock'>, token: string): Promise<SessionRecord | undefined> {
  const { db } = context.store;
  const tokenHash = hashSecret(token);
  const session = await findSessionByTokenHash(db, tokenHash);
  if (!session) return undefined;
  const now = context.clock.now().getTime();
  const lastUsed = Date.parse(session.lastUsedAt);
  if (now - lastUsed > sessionIdleMs) {
    await deleteSessionByTokenHash(db, tokenHash);
    return undefined;
  }
  if (now - lastUsed >= touchIntervalMs) await touchSession(db, session.id, new Date(now).toISOString());
  return session;
}

/** Ends the session of a cookie token (sign-out); nothing when it is already gone. */
export async function endSession(context: Pick<AppContext, 'store'>, token: string): Promise<void> {
  await deleteSessionByTokenHash(context.store.db, hashSecret(token));
}
