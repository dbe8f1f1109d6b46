import { sql, type Kysely } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../../store/database.js';
import { toBigInt } from '../../store/convert.js';
import type { LimitReset, PeriodStarts } from '../limit-periods.js';

/**
 * The statements of key limits that reset (issue 49). A key's limit counts `period_usage`
 * (`free-funds.ts`); the books add each charge to it, and these start a new period.
 */

/**
 * Starts the current period of every key whose stored period is older (`period_usage` 0,
 * `period_start` the new start), in one statement found by `(limit_reset, period_start)`.
 * Idempotent: run again, or by another instance, it finds nothing. On PostgreSQL the keys are
 * locked in id order, as every writer locks keys, and a row another instance rolled meanwhile
 * is re-checked under its lock and left alone (its new period's charges kept).
 */
export async function rollKeyPeriodsPostgres(pool: pg.Pool, starts: PeriodStarts): Promise<number> {
  const result = await pool.query({
    name: 'switchyard_roll_key_periods',
    text: `update api_keys set period_usage = 0, period_start = due.start
           from (select id, case limit_reset when 'daily' then $1 when 'weekly' then $2 else $3 end as start from api_keys
                 where (limit_reset = 'daily' and period_start < $1) or (limit_reset = 'weekly' and period_start < $2)
                    or (limit_reset = 'monthly' and period_start < $3)
                 order by id for no key update) as due
           where api_keys.id = due.id`,
    values: [starts.daily, starts.weekly, starts.monthly],
  });
  return result.rowCount ?? 0;
}

const sqliteRoll = new WeakMap<SqliteDatabase.Database, SqliteDatabase.Statement>();

/** As `rollKeyPeriodsPostgres`, on SQLite's one connection (no row locks: one writer). */
export function rollKeyPeriodsSqlite(database: SqliteDatabase.Database, starts: PeriodStarts): number {
  let statement = sqliteRoll.get(database);
  if (!statement) {
    statement = database.prepare(
      `update api_keys set period_usage = 0, period_start = case limit_reset when 'daily' then @daily when 'weekly' then @weekly else @monthly end
       where (limit_reset = 'daily' and period_start < @daily) or (limit_reset = 'weekly' and period_start < @weekly) or (limit_reset = 'monthly' and period_start < @monthly)`,
    );
    sqliteRoll.set(database, statement);
  }
  return statement.run({ daily: starts.daily, weekly: starts.weekly, monthly: starts.monthly }).changes;
}

/**
 * Sets (or clears) the key's reset. Switched to a period, the key's `period_usage` is what its
 * requests were charged since the period began (its usage rollups from that day on, by the day
 * of each request); cleared, its lifetime `usage`. The same reset again changes nothing. The
 * key's row is locked first (PostgreSQL), so a settlement commits wholly before the sum is read
 * or after the new period is written, and none is counted twice or lost. Answers whether the
 * key is an active key of the account.
 */
export async function setKeyLimitReset(
  db: Kysely<Database>,
  change: { accountId: string; keyId: string; reset: LimitReset | null; periodStart: string | null; postgres: boolean },
): Promise<boolean> {
  // In the caller's transaction when it has one (the route writes its audit entry in it too).
  const run = async (trx: Kysely<Database>): Promise<boolean> => {
    const lock = change.postgres ? sql` for no key update` : sql``;
    const found = await sql<{ limit_reset: string | null }>`select limit_reset from api_keys where id = ${change.keyId} and account_id = ${change.accountId} and revoked_at is null${lock}`.execute(trx);
    if (found.rows.length === 0) return false;
    if (found.rows[0].limit_reset === change.reset) return true;
    if (change.reset === null) {
      await sql`update api_keys set limit_reset = null, period_start = null, period_usage = usage where id = ${change.keyId}`.execute(trx);
      return true;
    }
    const day = change.periodStart!.slice(0, 10);
    await sql`update api_keys set limit_reset = ${change.reset}, period_start = ${change.periodStart},
                period_usage = (select coalesce(sum(cost), 0) from usage_rollups where account_id = ${change.accountId} and key_id = ${change.keyId} and day >= ${day})
              where id = ${change.keyId}`.execute(trx);
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** What each key's requests were charged per UTC day from `fromDay` on (YYYY-MM-DD), from the usage rollups. */
export async function keyDailyCharges(db: Kysely<Database>, accountId: string, keyIds: readonly string[], fromDay: string): Promise<Array<{ keyId: string; day: string; cost: bigint }>> {
  if (keyIds.length === 0) return [];
  const rows = await db
    .selectFrom('usage_rollups')
    .select(['key_id', 'day', (eb) => eb.fn.sum<string | number | bigint>('cost').as('cost')])
    .where('account_id', '=', accountId)
    .where('key_id', 'in', keyIds)
    .where('day', '>=', fromDay)
    .groupBy(['key_id', 'day'])
    .execute();
  return rows.map((row) => ({ keyId: row.key_id, day: row.day, cost: toBigInt(row.cost) }));
}
