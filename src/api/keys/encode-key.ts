import type { Kysely } from 'kysely';
import { nanoToUsd } from '../../core/money.js';
import type { Database } from '../../store/database.js';
import type { ApiKeyRecord, PriceCap } from '../../store/repositories/api-keys.js';
import { leasedOfKeys } from '../../billing/db/leases.js';
import { keyDailyCharges } from '../../billing/db/key-periods.js';
import { periodStart, periodStarts, type LimitReset } from '../../billing/limit-periods.js';

/** What a key's requests were charged in the current day, week and month (nano-USD). */
export interface KeyPeriodUsage {
  daily: bigint;
  weekly: bigint;
  monthly: bigint;
}

const noUsage: KeyPeriodUsage = { daily: 0n, weekly: 0n, monthly: 0n };

/**
 * Key objects of one account, each `limit_remaining` with what fund leases hold of it left in (see
 * `encodeKey`), and its usage in the current periods: one read of the account's usage rollups of
 * these keys since the earlier of this week's Monday and this month's 1st (at most 37 days of
 * rows per key and model, by the index on (account, key, day)). A rollup's day is its requests'
 * (their ids' time); the period of a key's own reset is read from the key itself (`encodeKey`).
 */
export async function encodeKeys(db: Kysely<Database>, accountId: string, keys: readonly ApiKeyRecord[], now: Date): Promise<Array<Record<string, unknown>>> {
  const leased = await leasedOfKeys(db, accountId, keys.filter((key) => key.spendLimit !== null).map((key) => key.id));
  const starts = periodStarts(now);
  const days = { daily: starts.daily.slice(0, 10), weekly: starts.weekly.slice(0, 10), monthly: starts.monthly.slice(0, 10) };
  const from = days.weekly < days.monthly ? days.weekly : days.monthly;
  const usage = new Map<string, KeyPeriodUsage>();
  for (const row of await keyDailyCharges(db, accountId, keys.map((key) => key.id), from)) {
    const sums = usage.get(row.keyId) ?? { ...noUsage };
    if (row.day >= days.daily) sums.daily += row.cost;
    if (row.day >= days.weekly) sums.weekly += row.cost;
    if (row.day >= days.monthly) sums.monthly += row.cost;
    usage.set(row.keyId, sums);
  }
  return keys.map((key) => encodeKey(key, now, { leased: leased.get(key.id), usage: usage.get(key.id) }));
}

/**
 * The key object of docs/api-decisions.md §5 and contract §8; prices in USD per 1M tokens.
 * `limit_remaining` is the limit less what it counts — the usage, or with `limit_reset` the
 * usage since the current period began — and less what running requests hold on the exact path;
 * `leased`, the part of `reserved` that fund leases hold (still the key's to spend), is not taken
 * off. A period this instance has not rolled over yet counts nothing.
 */
export function encodeKey(key: ApiKeyRecord, now: Date, held: { leased?: bigint; usage?: KeyPeriodUsage } = {}): Record<string, unknown> {
  const counted = key.limitReset !== null && key.periodStart !== null && key.periodStart < periodStart(key.limitReset as LimitReset, now).toISOString() ? 0n : key.periodUsage;
  const remaining = key.spendLimit === null ? null : key.spendLimit - counted - (key.reserved - (held.leased ?? 0n));
  // The period the limit counts in is the key's own count, exactly what `limit_remaining` is
  // figured from; the other periods come from the rollups.
  const usage = key.limitReset === null ? (held.usage ?? noUsage) : { ...(held.usage ?? noUsage), [key.limitReset]: counted };
  return {
    id: key.id,
    name: key.name,
    label: key.label,
    management: key.management,
    created_at: key.createdAt,
    limit: key.spendLimit === null ? null : nanoToUsd(key.spendLimit),
    limit_remaining: remaining === null ? null : nanoToUsd(remaining > 0n ? remaining : 0n),
    limit_reset: key.limitReset,
    usage: nanoToUsd(key.usage),
    usage_daily: nanoToUsd(usage.daily),
    usage_weekly: nanoToUsd(usage.weekly),
    usage_monthly: nanoToUsd(usage.monthly),
    max_price: key.maxPrice ? encodeCap(key.maxPrice) : null,
    model_max_prices: Object.fromEntries(Object.entries(key.modelMaxPrices).map(([model, cap]) => [model, encodeCap(cap)])),
    requests_per_minute: key.requestsPerMinute,
    cache: key.cache,
  };
}

function encodeCap(cap: PriceCap): { prompt: number | null; completion: number | null } {
  return {
    prompt: cap.prompt === null ? null : nanoToUsd(cap.prompt),
    completion: cap.completion === null ? null : nanoToUsd(cap.completion),
  };
}
