import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { toBigInt } from '../convert.js';
import type { Database } from '../database.js';

/** An account as one of its members sees it in the account switcher. */
export interface MembershipRecord {
  accountId: string;
  accountName: string;
  role: string;
  createdAt: string;
}

export async function insertMembership(db: Kysely<Database>, membership: { userId: string; accountId: string; role: string; createdAt: string }): Promise<void> {
  await inTransaction(db, async (trx) => {
    await lockKeysOf(trx, membership);
    await trx.insertInto('memberships').values(newMembershipRow(membership)).execute();
  });
}

const inTransaction = <T>(db: Kysely<Database>, run: (trx: Kysely<Database>) => Promise<T>): Promise<T> => (db.isTransaction ? run(db) : db.transaction().execute(run));

/**
 * Before a membership row is made from its keys' totals (`newMembershipRow`), on PostgreSQL: its
 * keys are locked, so that a release or charge of one of them (whose trigger would find no row
 * yet, and be lost) commits before the sums are read or waits until the row exists. SQLite's one
 * writer needs nothing.
 */
async function lockKeysOf(trx: Kysely<Database>, membership: { userId: string; accountId: string }): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select id from api_keys where account_id = ${membership.accountId} and created_by_user_id = ${membership.userId} order by id for no key update`.execute(trx);
}

/**
 * A new membership row. The member's totals (migration 2026-12-07-2020) start from its keys in
 * the account: a member removed and invited back finds what its old, revoked keys still hold in
 * flight (which the trigger will release from this row) and, for a lifetime limit, what they spent.
 */
function newMembershipRow(membership: { userId: string; accountId: string; role: string; createdAt: string }) {
  const ofKeys = (column: 'usage' | 'reserved') =>
    sql<bigint>`(select coalesce(sum(${sql.ref(column)}), 0) from api_keys where account_id = ${membership.accountId} and created_by_user_id = ${membership.userId})`;
  return {
    user_id: membership.userId,
    account_id: membership.accountId,
    role: membership.role,
    created_at: membership.createdAt,
    period_usage: ofKeys('usage'),
    reserved: ofKeys('reserved'),
  };
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
  await inTransaction(db, async (trx) => {
    await lockKeysOf(trx, membership);
    await trx
      .insertInto('memberships')
      .values(newMembershipRow(membership))
      .onConflict((conflict) => conflict.columns(['user_id', 'account_id']).doUpdateSet({ role: membership.role }))
      .execute();
  });
}

/** A member of an account as `GET /v1/members` lists it. */
export interface AccountMemberRecord {
  userId: string;
  name: string;
  email: string | null;
  role: string;
  joinedAt: string;
  /** The member's own limit (issue 49), nano-USD, and what it counts. */
  spendLimit: bigint | null;
  limitReset: string | null;
  periodStart: string | null;
  periodUsage: bigint;
}

/** The account's members by user id, after `cursor` (a user id); `only`: that one member. */
export async function listAccountMembers(db: Kysely<Database>, accountId: string, options: { limit: number; cursor?: string; only?: string }): Promise<AccountMemberRecord[]> {
  let query = db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'memberships.user_id',
      'users.name',
      'users.email',
      'memberships.role',
      'memberships.created_at',
      'memberships.spend_limit',
      'memberships.limit_reset',
      'memberships.period_start',
      'memberships.period_usage',
    ])
    .where('memberships.account_id', '=', accountId);
  if (options.cursor) query = query.where('memberships.user_id', '>', options.cursor);
  if (options.only !== undefined) query = query.where('memberships.user_id', '=', options.only);
  const rows = await query.orderBy('memberships.user_id').limit(options.limit).execute();
  return rows.map((row) => ({
    userId: row.user_id,
    name: row.name,
    email: row.email,
    role: row.role,
    joinedAt: row.created_at,
    spendLimit: row.spend_limit === null ? null : toBigInt(row.spend_limit),
    limitReset: row.limit_reset,
    periodStart: row.period_start,
    periodUsage: toBigInt(row.period_usage),
  }));
}

export async function setMembershipRole(db: Kysely<Database>, userId: string, accountId: string, role: string): Promise<void> {
  await db.updateTable('memberships').set({ role }).where('user_id', '=', userId).where('account_id', '=', accountId).execute();
}

export async function deleteMembership(db: Kysely<Database>, userId: string, accountId: string): Promise<void> {
  await db.deleteFrom('memberships').where('user_id', '=', userId).where('account_id', '=', accountId).execute();
}

/**
 * The account's owners, read so that the answer stays true until the transaction ends: on
 * PostgreSQL the owners' rows are locked (`for update`; a concurrent demotion waits, then sees the
 * row it changed no longer an owner), on SQLite the one connection runs one transaction at a time.
 * So two owners demoting or removing each other at once cannot both see "another owner is left".
 */
export async function lockOwners(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', accountId: string): Promise<string[]> {
  const query = db.selectFrom('memberships').select('user_id').where('account_id', '=', accountId).where('role', '=', 'owner').orderBy('user_id');
  const rows = await (dialect === 'postgres' ? query.forUpdate() : query).execute();
  return rows.map((row) => row.user_id);
}
