import { sql, type Kysely } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../../store/database.js';
import type { LimitReset, PeriodStarts } from '../limit-periods.js';

/**
 * The statements of member limits that reset (issue 49), as `key-periods.ts` for keys. A
 * member's `period_usage` is kept by a trigger on `api_keys` (migration 2026-12-07-2020); these
 * start a new period and set the member's limit.
 */

const dueWhere = `(limit_reset = 'daily' and period_start < $1) or (limit_reset = 'weekly' and period_start < $2) or (limit_reset = 'monthly' and period_start < $3)`;

/**
 * Starts the current period of every membership whose stored period is older. One row per
 * statement, each in autocommit and re-checked under its own lock: a reservation holds its
 * account's, keys' and then several members' rows, so a roll that held many members' rows at once
 * could wait on it in the opposite order. Idempotent, as the keys' roll.
 */
export async function rollMemberPeriodsPostgres(pool: pg.Pool, starts: PeriodStarts): Promise<number> {
  const values = [starts.daily, starts.weekly, starts.monthly];
  const due = await pool.query<{ user_id: string; account_id: string }>({ name: 'switchyard_due_member_periods', text: `select user_id, account_id from memberships where ${dueWhere}`, values });
  let rolled = 0;
  for (const row of due.rows) {
    const result = await pool.query({
      name: 'switchyard_roll_member_period',
      text: `update memberships set period_usage = 0, period_start = case limit_reset when 'daily' then $1 when 'weekly' then $2 else $3 end
             where user_id = $4 and account_id = $5 and (${dueWhere})`,
      values: [...values, row.user_id, row.account_id],
    });
    rolled += result.rowCount ?? 0;
  }
  return rolled;
}

const sqliteRoll = new WeakMap<SqliteDatabase.Database, SqliteDatabase.Statement>();

/** As `rollMemberPeriodsPostgres`, on SQLite's one connection (one statement: one writer, no row locks). */
export function rollMemberPeriodsSqlite(database: SqliteDatabase.Database, starts: PeriodStarts): number {
  let statement = sqliteRoll.get(database);
  if (!statement) {
    statement = database.prepare(
      `update memberships set period_usage = 0, period_start = case limit_reset when 'daily' then @daily when 'weekly' then @weekly else @monthly end
       where (limit_reset = 'daily' and period_start < @daily) or (limit_reset = 'weekly' and period_start < @weekly) or (limit_reset = 'monthly' and period_start < @monthly)`,
    );
    sqliteRoll.set(database, statement);
  }
  return statement.run({ daily: starts.daily, weekly: starts.weekly, monthly: starts.monthly }).changes;
}

/**
 * Sets a member's limit and reset, in the caller's transaction. A new reset starts counting what
 * the member's keys were charged since the period began (their usage rollups from that day on);
 * no reset, their lifetime usage (revoked keys included). The membership row is locked first
 * (PostgreSQL): a settlement of one of its keys, which updates it through the trigger, commits
 * wholly before the sum is read or after it is written. Answers whether the member exists.
 */
export async function setMemberLimit(
  trx: Kysely<Database>,
  change: { accountId: string; userId: string; limit: bigint | null | undefined; reset: LimitReset | null | undefined; periodStart: string | null; postgres: boolean },
): Promise<boolean> {
  const lock = change.postgres ? sql` for no key update` : sql``;
  const found = await sql<{ limit_reset: string | null }>`select limit_reset from memberships where account_id = ${change.accountId} and user_id = ${change.userId}${lock}`.execute(trx);
  if (found.rows.length === 0) return false;
  if (change.limit !== undefined) {
    await trx.updateTable('memberships').set({ spend_limit: change.limit }).where('account_id', '=', change.accountId).where('user_id', '=', change.userId).execute();
  }
  if (change.postgres) {
    // Other instances drop the leases of the member's keys, sized under the old limit, as for a
    // key's own change (the `switchyard_leases` channel of migration 2026-12-07-1330), on commit.
    await sql`select pg_notify('switchyard_leases', 'key ' || id) from api_keys
              where account_id = ${change.accountId} and created_by_user_id = ${change.userId} and revoked_at is null`.execute(trx);
  }
  if (change.reset === undefined || found.rows[0].limit_reset === change.reset) return true;
  const keys = sql`select id from api_keys where account_id = ${change.accountId} and created_by_user_id = ${change.userId}`;
  if (change.reset === null) {
    await sql`update memberships set limit_reset = null, period_start = null,
                period_usage = (select coalesce(sum(usage), 0) from api_keys where account_id = ${change.accountId} and created_by_user_id = ${change.userId})
              where account_id = ${change.accountId} and user_id = ${change.userId}`.execute(trx);
    return true;
  }
  const day = change.periodStart!.slice(0, 10);
  await sql`update memberships set limit_reset = ${change.reset}, period_start = ${change.periodStart},
              period_usage = (select coalesce(sum(cost), 0) from usage_rollups where account_id = ${change.accountId} and key_id in (${keys}) and day >= ${day})
            where account_id = ${change.accountId} and user_id = ${change.userId}`.execute(trx);
  return true;
}
