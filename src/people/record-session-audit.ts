import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/record-audit.js';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/database.js';
import { listUserMemberships } from '../store/repositories/memberships.js';

export interface SessionAuditEntry {
  action: 'session.sign_in' | 'session.sign_out' | 'session.end';
  userId: string;
  /** The session signed in, signed out or ended: its id, never its token. */
  sessionId: string;
  ip: string | null;
  details?: Record<string, unknown>;
}

/**
 * A session is the user's, not one account's, but the audit log is per account: the entry is
 * written once to each account the user is a member of at that moment (the accounts the session
 * can act on), so every owner sees who came and went. Bounded by the user's memberships; a user
 * with none (all removed) leaves no entry. Call it in the transaction of the session's change.
 */
export async function recordSessionAudit(db: Kysely<Database>, context: Pick<AppContext, 'clock' | 'createId'>, entry: SessionAuditEntry): Promise<void> {
  const at = context.clock.now().toISOString();
  for (const membership of await listUserMemberships(db, entry.userId)) {
    await recordAudit(db, {
      id: context.createId('aud'),
      accountId: membership.accountId,
      at,
      actor: { type: 'user', id: entry.userId },
      action: entry.action,
      target: entry.sessionId,
      ip: entry.ip,
      details: entry.details,
    });
  }
}
