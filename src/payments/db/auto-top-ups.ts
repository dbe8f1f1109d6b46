import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

export interface AutoTopUpRecord {
  accountId: string;
  enabled: boolean;
  threshold: bigint;
  amount: bigint;
  inFlight: boolean;
  lastFailure: string | null;
  lastFailureAt: string | null;
}

export async function findAutoTopUp(db: Kysely<Database>, accountId: string): Promise<AutoTopUpRecord | undefined> {
  const row = await db.selectFrom('auto_top_ups').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  if (!row) return undefined;
  return {
    accountId: row.account_id,
    enabled: Number(row.enabled) === 1,
    threshold: BigInt(row.threshold),
    amount: BigInt(row.amount),
    inFlight: row.in_flight_id !== null,
    lastFailure: row.last_failure,
    lastFailureAt: row.last_failure_at,
  };
}

/** Settings from the account's owner; turning it on re-arms it and forgets the last failure. */
export async function saveAutoTopUp(db: Kysely<Database>, row: { accountId: string; enabled: boolean; threshold: bigint; amount: bigint; updatedAt: string }): Promise<void> {
  const settings = { enabled: row.enabled ? 1 : 0, threshold: row.threshold, amount: row.amount, updated_at: row.updatedAt };
  const cleared = row.enabled ? { armed: 1, last_failure: null, last_failure_at: null } : {};
  await db
    .insertInto('auto_top_ups')
    .values({ account_id: row.accountId, ...settings, armed: 1, in_flight_id: null, in_flight_since: null, payment_id: null, last_failure: null, last_failure_at: null })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ ...settings, ...cleared }))
    .execute();
}

export interface AutoTopUpDue {
  accountId: string;
  amount: bigint;
  /** Set when a claim was made but its payment was never created (the instance died, the provider did not answer). */
  staleClaimId: string | null;
  staleSince: string | null;
}

/**
 * Accounts whose auto top-up should pay now: on, armed, nothing in flight and the balance
 * (credits − usage, as `GET /credits` shows it) below the threshold; and claims left without a
 * payment since before `staleBefore`. Reads the auto-top-up table only (a few rows), joined to
 * each one's account by primary key.
 */
export async function findDueAutoTopUps(db: Kysely<Database>, staleBefore: string): Promise<AutoTopUpDue[]> {
  const rows = await db
    .selectFrom('auto_top_ups as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.account_id', 't.amount', 't.in_flight_id', 't.in_flight_since'])
    .where('t.enabled', '=', 1)
    .where((eb) =>
      eb.or([
        eb.and([eb('t.armed', '=', 1), eb('t.in_flight_id', 'is', null), eb(sql`a.total_credits - a.total_usage`, '<', eb.ref('t.threshold'))]),
        eb.and([eb('t.in_flight_id', 'is not', null), eb('t.payment_id', 'is', null), eb('t.in_flight_since', '<', staleBefore)]),
      ]),
    )
    .execute();
  return rows.map((row) => ({ accountId: row.account_id, amount: BigInt(row.amount), staleClaimId: row.in_flight_id, staleSince: row.in_flight_since }));
}

/** Re-arms every auto top-up whose balance is back at or above its threshold: the next crossing may pay. */
export async function rearmAutoTopUps(db: Kysely<Database>): Promise<void> {
  await db
    .updateTable('auto_top_ups')
    .set({ armed: 1 })
    .where('armed', '=', 0)
    .where('in_flight_id', 'is', null)
    .where((eb) => eb.exists(eb.selectFrom('accounts as a').select('a.id').whereRef('a.id', '=', 'auto_top_ups.account_id').where(sql`a.total_credits - a.total_usage`, '>=', sql.ref('auto_top_ups.threshold'))))
    .execute();
}

/**
 * Claims the account's next payment: true for exactly one caller across instances, because the
 * UPDATE only matches while nothing is in flight and the row is armed.
 */
export async function claimAutoTopUp(db: Kysely<Database>, accountId: string, claimId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('auto_top_ups')
    .set({ in_flight_id: claimId, in_flight_since: now, payment_id: null, armed: 0 })
    .where('account_id', '=', accountId)
    .where('enabled', '=', 1)
    .where('armed', '=', 1)
    .where('in_flight_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Takes over a stale claim (same claim id, hence the same idempotency key) for one caller. */
export async function reclaimStaleAutoTopUp(db: Kysely<Database>, accountId: string, claimId: string, since: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('auto_top_ups')
    .set({ in_flight_since: now })
    .where('account_id', '=', accountId)
    .where('in_flight_id', '=', claimId)
    .where('in_flight_since', '=', since)
    .where('payment_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function recordAutoTopUpPayment(db: Kysely<Database>, accountId: string, claimId: string, paymentId: string): Promise<void> {
  await db.updateTable('auto_top_ups').set({ payment_id: paymentId }).where('account_id', '=', accountId).where('in_flight_id', '=', claimId).execute();
}

/**
 * The claim's payment was paid: nothing in flight any more (armed again once the balance is back
 * over the threshold). Only that claim: a late or repeated event of an older payment changes nothing.
 */
export async function settleAutoTopUp(db: Kysely<Database>, accountId: string, claimId: string): Promise<void> {
  await db.updateTable('auto_top_ups').set({ in_flight_id: null, in_flight_since: null, payment_id: null }).where('account_id', '=', accountId).where('in_flight_id', '=', claimId).execute();
}

/**
 * A failed payment turns auto top-up off and says why (contract §7). With a claim id, only while
 * that claim is the one in flight (or nothing is): a late failure of an older payment does not
 * undo settings made since.
 */
export async function failAutoTopUp(db: Kysely<Database>, accountId: string, claimId: string | null, message: string, now: string): Promise<boolean> {
  let update = db
    .updateTable('auto_top_ups')
    .set({ enabled: 0, in_flight_id: null, in_flight_since: null, payment_id: null, last_failure: message.slice(0, 500), last_failure_at: now, updated_at: now })
    .where('account_id', '=', accountId);
  if (claimId !== null) update = update.where('in_flight_id', '=', claimId);
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows === 1n;
}
