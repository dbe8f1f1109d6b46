import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import type { AuditActor } from './record-audit.js';

export interface AuditRecord {
  id: string;
  at: string;
  actor: AuditActor;
  action: string;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  /** An action (`key.create`) or a family of them (`key`, matching `key.*`). */
  action?: string;
  actorType?: AuditActor['type'];
  actorId?: string;
}

/**
 * An account's audit entries, newest first, after `cursor` (an entry id). The index on
 * (account_id, id) orders them; the filters narrow what that walk returns, within the page's limit.
 */
export async function listAudit(db: Kysely<Database>, accountId: string, page: { limit: number; cursor?: string }, filter: AuditFilter = {}): Promise<AuditRecord[]> {
  let query = db
    .selectFrom('audit_entries')
    .select(['id', 'at', 'actor_type', 'actor_id', 'action', 'target', 'ip', 'details'])
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(page.limit);
  if (page.cursor !== undefined) query = query.where('id', '<', page.cursor);
  if (filter.action !== undefined) {
    const action = filter.action;
    query = action.includes('.') ? query.where('action', '=', action) : query.where((eb) => eb.or([eb('action', '=', action), eb('action', 'like', `${action}.%`)]));
  }
  if (filter.actorType !== undefined) query = query.where('actor_type', '=', filter.actorType);
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    actor: { type: row.actor_type as AuditActor['type'], id: row.actor_id },
    action: row.action,
    target: row.target,
    ip: row.ip,
    details: JSON.parse(row.details) as Record<string, unknown>,
  }));
}
