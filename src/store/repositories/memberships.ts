import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

/** An account as one of its members sees it in the account switcher. */
export interface MembershipRecord {
  accountId: string;
  accountName: string;
  role: string;
  createdAt: string;
}

export async function insertMembership(db: Kysely<Database>, membership: { userId: string; accountId: string; role: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ user_id: membership.userId, account_id: membership.accountId, role: membership.role, created_at: membership.createdAt })
    .execute();
}

/** The user's role in the account, or undefined when the user is no member of it (or it does not exist). */
export async function findMembershipRole(db: Kysely<Database>, userId: string, accountId: string): Promise<string | undefined> {
  const row = await db.selectFrom('memberships').select('role').where('user_id', '=', userId).where('account_id', '=', accountId).executeTakeFirst();
  return row?.role;
}

/** The accounts a user belongs to, oldest membership first (the account made at sign-up leads). */
export async function listUserMemberships(db: Kysely<Database>, userId: string): Promise<MembershipRecord[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['memberships.account_id', 'accounts.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('memberships.account_id')
    .execute();
  return rows.map((row) => ({ accountId: row.account_id, accountName: row.name, role: row.role, createdAt: row.created_at }));
}

/** The memberships of several users at once (a page of the operator's user list), oldest first per user. */
export async function listMembershipsOfUsers(db: Kysely<Database>, userIds: string[]): Promise<Array<MembershipRecord & { userId: string }>> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['memberships.user_id', 'memberships.account_id', 'accounts.name', 'memberships.role', 'memberships.created_at'])
    .where('memberships.user_id', 'in', userIds)
    .orderBy('memberships.created_at')
    .execute();
  return rows.map((row) => ({ userId: row.user_id, accountId: row.account_id, accountName: row.name, role: row.role, createdAt: row.created_at }));
}

/** Gives a user a role in an account, or changes the role they have there. */
export async function upsertMembership(db: Kysely<Database>, membership: { userId: string; accountId: string; role: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('memberships')
    .values({ user_id: membership.userId, account_id: membership.accountId, role: membership.role, created_at: membership.createdAt })
    .onConflict((conflict) => conflict.columns(['user_id', 'account_id']).doUpdateSet({ role: membership.role }))
    .execute();
}
