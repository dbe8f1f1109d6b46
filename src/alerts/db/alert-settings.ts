import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import type { AlertSettings } from '../alert-types.js';

type Row = Database['alert_settings'];

function toSettings(row: { [K in keyof Row]: Row[K] }): AlertSettings {
  return {
    accountId: row.account_id,
    lowBalanceThreshold: row.low_balance_threshold === null ? null : BigInt(row.low_balance_threshold),
    keyLimitPercents: JSON.parse(row.key_limit_percents) as number[],
    email: Number(row.email) === 1,
    telegram: Number(row.telegram) === 1,
    webhook: row.webhook_url !== null && row.webhook_secret !== null ? { url: row.webhook_url, secret: row.webhook_secret } : null,
    updatedAt: row.updated_at,
  };
}

export async function findAlertSettings(db: Kysely<Database>, accountId: string): Promise<AlertSettings | undefined> {
  const row = await db.selectFrom('alert_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  return row && toSettings(row);
}

export async function saveAlertSettings(db: Kysely<Database>, settings: AlertSettings): Promise<void> {
  const values = {
    low_balance_threshold: settings.lowBalanceThreshold,
    key_limit_percents: JSON.stringify(settings.keyLimitPercents),
    email: settings.email ? 1 : 0,
    telegram: settings.telegram ? 1 : 0,
    webhook_url: settings.webhook?.url ?? null,
    webhook_secret: settings.webhook?.secret ?? null,
    updated_at: settings.updatedAt,
  };
  await db
    .insertInto('alert_settings')
    .values({ account_id: settings.accountId, ...values })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet(values))
    .execute();
}

/** Accounts below their low-balance threshold (balance = credits − usage, as `GET /credits` shows it), with the balance. */
export async function findLowBalances(db: Kysely<Database>): Promise<Array<{ accountId: string; threshold: bigint; credits: bigint; usage: bigint }>> {
  const rows = await db
    .selectFrom('alert_settings as s')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(['s.account_id', 's.low_balance_threshold', 'a.total_credits', 'a.total_usage'])
    .where('s.low_balance_threshold', 'is not', null)
    .execute();
  return rows.map((row) => ({ accountId: row.account_id, threshold: BigInt(row.low_balance_threshold!), credits: BigInt(row.total_credits), usage: BigInt(row.total_usage) }));
}

/** A limit an alert watches: a key's or a member's, with what it counts in its current period. */
export interface WatchedLimit {
  accountId: string;
  /** The key's id, or the member's user id. */
  subject: string;
  name: string;
  limit: bigint;
  /** `limit_reset` (issue 49), or null for a lifetime limit. */
  limitReset: string | null;
  /** When the stored period began (null without a reset), and what was charged in it (lifetime usage without a reset). */
  periodStart: string | null;
  periodUsage: bigint;
  percents: number[];
}

/** The keys with a spending limit of every account that asked for key-limit alerts, with its percents. */
export async function findLimitedKeys(db: Kysely<Database>): Promise<WatchedLimit[]> {
  const rows = await db
    .selectFrom('alert_settings as s')
    .innerJoin('api_keys as k', 'k.account_id', 's.account_id')
    .select(['s.account_id', 's.key_limit_percents', 'k.id', 'k.name', 'k.spend_limit', 'k.limit_reset', 'k.period_start', 'k.period_usage'])
    .where('s.key_limit_percents', '!=', '[]')
    .where('k.spend_limit', 'is not', null)
    .where('k.revoked_at', 'is', null)
    .execute();
  return rows.map((row) => ({
    accountId: row.account_id,
    subject: row.id,
    name: row.name,
    limit: BigInt(row.spend_limit!),
    limitReset: row.limit_reset,
    periodStart: row.period_start,
    periodUsage: BigInt(row.period_usage),
    percents: JSON.parse(row.key_limit_percents) as number[],
  }));
}

/**
 * The members with a limit of every account that asked for limit alerts (contract §8: "key and
 * member limits at configured percents", the same `key_limit_percents`).
 */
export async function findLimitedMembers(db: Kysely<Database>): Promise<WatchedLimit[]> {
  const rows = await db
    .selectFrom('alert_settings as s')
    .innerJoin('memberships as m', 'm.account_id', 's.account_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['s.account_id', 's.key_limit_percents', 'm.user_id', 'u.name', 'm.spend_limit', 'm.limit_reset', 'm.period_start', 'm.period_usage'])
    .where('s.key_limit_percents', '!=', '[]')
    .where('m.spend_limit', 'is not', null)
    .execute();
  return rows.map((row) => ({
    accountId: row.account_id,
    subject: row.user_id,
    name: row.name,
    limit: BigInt(row.spend_limit!),
    limitReset: row.limit_reset,
    periodStart: row.period_start,
    periodUsage: BigInt(row.period_usage),
    percents: JSON.parse(row.key_limit_percents) as number[],
  }));
}
