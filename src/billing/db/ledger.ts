import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { toBigInt } from '../../store/convert.js';
import { heartbeatTimeOf, type HeartbeatTime } from '../../store/repositories/instances.js';
import { accountFree, keyFree, memberFree } from './free-funds.js';
import type { LimitReset } from '../limit-periods.js';

/**
 * Ids of reservations that outlived their bound (their request crashed or was lost), judged by
 * the clock that stamped them: the durable ones (tasks: no instance) and the caller's own
 * per-request ones. Another live instance's reservations are its own to expire, and a dead one's
 * are orphaned (`listOrphanedReservations`), so no two instances' clocks are compared. A lease row
 * (its `request_id` is its own id) never expires while its instance beats: it holds what that
 * instance's requests hold, for as long as they use it (docs/leases.md).
 */
export async function listExpiredReservations(db: Kysely<Database>, now: string, instanceId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('reservations')
    .select('id')
    .where('expires_at', '<', now)
    .where((eb) => eb.or([eb('instance_id', 'is', null), eb.and([eb('instance_id', '=', instanceId), eb('request_id', '<>', eb.ref('id'))])]))
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Reservations held by instances whose heartbeat is older than `staleBefore` (they died).
 * Durable reservations (no instance: those of tasks, which outlive any one process) are not
 * listed; their task settles or releases them.
 */
export async function listOrphanedReservations(db: Kysely<Database>, staleBefore: HeartbeatTime, limit: number): Promise<string[]> {
  const stale = heartbeatTimeOf(staleBefore);
  const rows = await db
    .selectFrom('reservations')
    .leftJoin('instances', 'instances.id', 'reservations.instance_id')
    .select('reservations.id')
    .where('reservations.instance_id', 'is not', null)
    .where((eb) => eb.or([eb('instances.id', 'is', null), eb('instances.heartbeat_at', '<', stale)]))
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * What the account and key could still reserve right now; with `netOfReserved` false, what they
 * have not spent (reservations and leases, which may yet come back, counted as still there).
 */
export async function readSpendable(db: Kysely<Database>, accountId: string, keyId: string | null, netOfReserved = true): Promise<bigint> {
  // Free funds; with `netOfReserved` false, plus what is reserved (not spent, and may yet come back).
  const account = await db.selectFrom('accounts').select([accountFree.as('free'), 'reserved']).where('id', '=', accountId).executeTakeFirst();
  if (!account) return 0n;
  let spendable = toBigInt(account.free) + (netOfReserved ? 0n : toBigInt(account.reserved));
  if (keyId !== null) {
    const key = await db.selectFrom('api_keys').select([keyFree.as('free'), 'reserved', 'account_id', 'created_by_user_id']).where('id', '=', keyId).executeTakeFirst();
    if (key && key.free !== null) {
      const remaining = toBigInt(key.free) + (netOfReserved ? 0n : toBigInt(key.reserved));
      if (remaining < spendable) spendable = remaining;
    }
    if (key && key.created_by_user_id !== null) {
      const member = await db
        .selectFrom('memberships')
        .select([memberFree.as('free'), 'reserved'])
        .where('account_id', '=', key.account_id)
        .where('user_id', '=', key.created_by_user_id)
        .executeTakeFirst();
      if (member && member.free !== null) {
        const remaining = toBigInt(member.free) + (netOfReserved ? 0n : toBigInt(member.reserved));
        if (remaining < spendable) spendable = remaining;
      }
    }
  }
  return spendable > 0n ? spendable : 0n;
}

/** The key's `limit_reset` (issue 49), or null: a lifetime limit, or no such key. */
export async function readKeyReset(db: Kysely<Database>, keyId: string): Promise<LimitReset | null> {
  const row = await db.selectFrom('api_keys').select('limit_reset').where('id', '=', keyId).executeTakeFirst();
  return (row?.limit_reset ?? null) as LimitReset | null;
}

/** The `limit_reset` of the member who made the key (issue 49), or null: a lifetime limit, no member. */
export async function readMemberReset(db: Kysely<Database>, keyId: string): Promise<LimitReset | null> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('memberships', (join) => join.onRef('memberships.account_id', '=', 'api_keys.account_id').onRef('memberships.user_id', '=', 'api_keys.created_by_user_id'))
    .select('memberships.limit_reset')
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst();
  return (row?.limit_reset ?? null) as LimitReset | null;
}

export interface UncollectedEntry {
  id: string;
  accountId: string;
  keyId: string | null;
  requestId: string | null;
  amount: bigint;
  note: string | null;
  createdAt: string;
}

/** What the account's funds (or keys' limits) could not cover, in total (nano-USD). */
export async function sumUncollected(db: Kysely<Database>, accountId: string): Promise<bigint> {
  const row = await db
    .selectFrom('ledger_entries')
    .select(sql<string | bigint | null>`sum(amount)`.as('total'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'uncollected')
    .executeTakeFirst();
  return toBigInt(row?.total ?? null);
}

/** The newest uncollected entries of every account (or one), for the operator. */
export async function listUncollected(db: Kysely<Database>, filter: { accountId?: string; limit: number }): Promise<UncollectedEntry[]> {
  let query = db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'uncollected');
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    requestId: row.request_id,
    amount: toBigInt(row.amount),
    note: row.note,
    createdAt: row.created_at,
  }));
}
