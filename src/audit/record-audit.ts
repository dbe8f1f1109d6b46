import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.js';
import type { Database } from '../store/database.js';

/** Who made a change (contract §8): a signed-in user, a key, or the operator's admin token or CLI. */
export interface AuditActor {
  type: 'user' | 'key' | 'admin';
  id: string;
}

export interface AuditEntry {
  /** `createId('aud')`: ids grow with time, the list's order. */
  id: string;
  accountId: string;
  at: string;
  actor: AuditActor;
  /** A dotted verb naming what changed: `key.create`, `key.limit`, `member.role`, `session.sign_in`, `money.top_up`… */
  action: string;
  /** What it changed: a key id, a user id, a ledger entry id; null when the account itself. */
  target: string | null;
  ip: string | null;
  /** What the change was, as plain JSON values; never a secret. */
  details?: Record<string, unknown>;
}

/** The operator, through the admin API or the CLI. */
export const adminActor: AuditActor = { type: 'admin', id: 'admin' };

/** The actor behind an authenticated principal: the signed-in user, else the key. */
export function actorOf(principal: Principal): AuditActor {
  return principal.session ? { type: 'user', id: principal.session.userId } : { type: 'key', id: principal.keyId };
}

/**
 * Appends one entry. Call it with the transaction that makes the change, so the change and its
 * entry commit together or not at all. Nothing in the API updates or deletes an entry.
 */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_entries')
    .values({
      id: entry.id,
      account_id: entry.accountId,
      at: entry.at,
      actor_type: entry.actor.type,
      actor_id: entry.actor.id,
      action: entry.action,
      target: entry.target,
      ip: entry.ip,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}
