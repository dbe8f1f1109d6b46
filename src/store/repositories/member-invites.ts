import type { Kysely, Selectable } from 'kysely';
import type { Database, MemberInvitesTable } from '../database.js';

export interface InviteRecord {
  id: string;
  accountId: string;
  email: string | null;
  role: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  usedByUserId: string | null;
  revokedAt: string | null;
}

function toInvite(row: Selectable<MemberInvitesTable>): InviteRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    role: row.role,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    usedByUserId: row.used_by_user_id,
    revokedAt: row.revoked_at,
  };
}

export async function insertInvite(db: Kysely<Database>, invite: Omit<InviteRecord, 'usedAt' | 'usedByUserId' | 'revokedAt'> & { tokenHash: string }): Promise<void> {
  await db
    .insertInto('member_invites')
    .values({
      id: invite.id,
      account_id: invite.accountId,
      token_hash: invite.tokenHash,
      email: invite.email,
      role: invite.role,
      created_by: invite.createdBy,
      created_at: invite.createdAt,
      expires_at: invite.expiresAt,
    })
    .execute();
}

export async function findInviteByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<InviteRecord | undefined> {
  const row = await db.selectFrom('member_invites').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && toInvite(row);
}

/** The account's invites neither used, revoked nor expired at `now`, newest first, after `cursor` (an invite id). */
export async function listPendingInvites(db: Kysely<Database>, accountId: string, now: string, options: { limit: number; cursor?: string }): Promise<InviteRecord[]> {
  let query = db
    .selectFrom('member_invites')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
  if (options.cursor) query = query.where('id', '<', options.cursor);
  const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map(toInvite);
}

/** Revokes a pending invite of the account; false when there is none of that id (used and revoked ones included). */
export async function revokeInvite(db: Kysely<Database>, accountId: string, id: string, now: string): Promise<InviteRecord | undefined> {
  const row = await db
    .updateTable('member_invites')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row && toInvite(row);
}

/**
 * Uses the invite: one conditional statement, so that of two acceptances at once (on any
 * instances) exactly one finds it unused, unrevoked and unexpired. Answers false otherwise.
 */
export async function consumeInvite(db: Kysely<Database>, id: string, userId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('member_invites')
    .set({ used_at: now, used_by_user_id: userId })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
