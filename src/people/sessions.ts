import type { AppContext } from '../app-context.js';
import { deleteSessionByTokenHash, deleteStaleSessions, deleteUserSession, findSessionByTokenHash, insertSession, touchSession, type SessionRecord } from '../store/repositories/sessions.js';
import { recordSessionAudit } from './record-session-audit.js';
import { createSecret, hashSecret } from './session-secrets.js';

/** A session ends after 30 days without use (contract §7). */
export const sessionIdleMs = 30 * 24 * 3600_000;
/** `last_used_at` is written at most this often, not on every request. */
const touchIntervalMs = 60_000;

type SessionContext = Pick<AppContext, 'store' | 'clock' | 'createId'>;

/** How the user proved who they are; the page's key sign-in stays in the browser and starts no session. */
export type SignInMethod = 'oidc' | 'email' | 'telegram';

/**
 * Starts a new session for a user who has just proved who they are, and answers its token (for
 * the cookie). Always a new id and token: a cookie the browser brought along (perhaps planted
 * by someone else) is ended, never promoted to the signed-in session. The session and its
 * `session.sign_in` audit entries commit together.
 */
export async function startSession(context: SessionContext, userId: string, client: { method: SignInMethod; userAgent?: string; ip?: string; previousToken?: string }): Promise<string> {
  const { db } = context.store;
  const now = context.clock.now();
  const token = createSecret();
  if (client.previousToken !== undefined) await deleteSessionByTokenHash(db, hashSecret(client.previousToken));
  // Sessions of people who never came back would stay for ever: each sign-in removes a few.
  await deleteStaleSessions(db, new Date(now.getTime() - sessionIdleMs).toISOString(), 100);
  const sessionId = context.createId('ses');
  await db.transaction().execute(async (trx) => {
    await insertSession(trx, {
      id: sessionId,
      tokenHash: hashSecret(token),
      userId,
      createdAt: now.toISOString(),
      lastUsedAt: now.toISOString(),
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      ip: client.ip ?? null,
    });
    await recordSessionAudit(trx, context, { action: 'session.sign_in', userId, sessionId, ip: client.ip ?? null, details: { method: client.method } });
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

/**
 * Ends the session of a cookie (sign-out), with its `session.sign_out` audit entries in the same
 * transaction; nothing, and no entry, when it is already gone (a sign-out racing another).
 */
export async function endSession(context: SessionContext, session: Pick<SessionRecord, 'id' | 'userId'>, ip: string | null): Promise<void> {
  await context.store.db.transaction().execute(async (trx) => {
    if (!(await deleteUserSession(trx, session.userId, session.id))) return;
    await recordSessionAudit(trx, context, { action: 'session.sign_out', userId: session.userId, sessionId: session.id, ip });
  });
}

/**
 * Ends one of the user's sessions by id (`DELETE /auth/sessions/{id}`), with its `session.end`
 * audit entries in the same transaction. False when the user has no such session: another
 * user's session id is as unknown as one that never was.
 */
export async function endUserSession(context: SessionContext, userId: string, sessionId: string, ip: string | null): Promise<boolean> {
  return context.store.db.transaction().execute(async (trx) => {
    if (!(await deleteUserSession(trx, userId, sessionId))) return false;
    await recordSessionAudit(trx, context, { action: 'session.end', userId, sessionId, ip });
    return true;
  });
}
