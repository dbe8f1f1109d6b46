import type { UsageDimension } from '../../store/database.js';
import type { UsageRollupDelta } from './usage-sums.js';

/**
 * The usage report's summaries beside the detailed rollups (docs/usage-reports.md). A detailed
 * rollup row is one (account, day, key, model, provider); the report needs per-day totals and, over
 * the range, sums per model, per provider and per key. Summed from the detail these grow with
 * keys × models × days; kept per dimension at coarse periods they grow with the answer only:
 *
 * - `day`: the account's total of one day (value '');
 * - `model:day`, `model:month`, `provider:day`, `provider:month`: one model's or provider's total
 *   of a day or a calendar month;
 * - `key:day`, `key:week`, `key:month`: one key's total of a day, a week of a month (days 1–7,
 *   8–14, 15–21, 22–end: weeks that never cross a month, so that they nest in months) or a month.
 *
 * Keys have the extra week grain because there can be thousands of them: a year's range is at most
 * about 30 of their periods (whole months, whole weeks at the edges, a few days) instead of up to 72.
 * Every period is named by its first day (YYYY-MM-DD), so one dimension's periods sort in time.
 */
export type { UsageDimension };

export type Grain = 'day' | 'week' | 'month';

/** What one batch adds to one (account, dimension, period, value) summary row. */
export interface UsageSummaryDelta {
  accountId: string;
  dimension: UsageDimension;
  /** The period's first day, YYYY-MM-DD. */
  period: string;
  value: string;
  requests: number;
  promptTokens: bigint;
  completionTokens: bigint;
  cost: bigint;
}

/** The first day of the week of the month that holds `day` (YYYY-MM-DD). */
export function weekOf(day: string): string {
  const date = Number(day.slice(8, 10));
  const start = date < 8 ? '01' : date < 15 ? '08' : date < 22 ? '15' : '22';
  return `${day.slice(0, 8)}${start}`;
}

export function monthOf(day: string): string {
  return `${day.slice(0, 8)}01`;
}

/** The summary rows each rollup adds to, in a fixed order (one per dimension). */
function summaryKeysOf(delta: UsageRollupDelta): Array<[UsageDimension, string, string]> {
  const { day, model, provider, keyId } = delta;
  const month = monthOf(day);
  return [
    ['day', day, ''],
    ['model:day', day, model],
    ['model:month', month, model],
    ['provider:day', day, provider],
    ['provider:month', month, provider],
    ['key:day', day, keyId],
    ['key:week', weekOf(day), keyId],
    ['key:month', month, keyId],
  ];
}

/** Summary rows per rollup row. */
export const summariesPerRollup = 8;

/**
 * Folds rollup deltas into summary deltas, sorted by (account, dimension, period, value) so that
 * concurrent writers lock the rows in one order, and for each rollup the index of each summary
 * it adds to (`summaryOf[rollup * summariesPerRollup + n]`), for a writer that sums in SQL.
 */
export function summarizeUsageByRollup(deltas: readonly UsageRollupDelta[]): { summaries: UsageSummaryDelta[]; summaryOf: number[] } {
  const byKey = new Map<string, UsageSummaryDelta>();
  const keyOf: string[] = [];
  for (const delta of deltas) {
    for (const [dimension, period, value] of summaryKeysOf(delta)) {
      const key = `${delta.accountId}\u0000${dimension}\u0000${period}\u0000${value}`;
      keyOf.push(key);
      let sum = byKey.get(key);
      if (!sum) {
        sum = { accountId: delta.accountId, dimension, period, value, requests: 0, promptTokens: 0n, completionTokens: 0n, cost: 0n };
        byKey.set(key, sum);
      }
      sum.requests += delta.requests;
      sum.promptTokens += delta.promptTokens;
      sum.completionTokens += delta.completionTokens;
      sum.cost += delta.cost;
    }
  }
  const sorted = [...byKey.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  const position = new Map<string, number>();
  const summaries: UsageSummaryDelta[] = [];
  for (const [key, sum] of sorted) {
    position.set(key, summaries.length);
    summaries.push(sum);
  }
  const summaryOf: number[] = [];
  for (const key of keyOf) summaryOf.push(position.get(key)!);
  return { summaries, summaryOf };
}

export function summarizeUsage(deltas: readonly UsageRollupDelta[]): UsageSummaryDelta[] {
  return summarizeUsageByRollup(deltas).summaries;
}

/** A run of one grain's consecutive periods, named by their first days (inclusive). */
export interface PeriodRun {
  grain: Grain;
  first: string;
  last: string;
}

const dayMs = 86_400_000;
const formatDay = (milliseconds: number) => new Date(milliseconds).toISOString().slice(0, 10);
const dayAt = (day: string) => Date.parse(`${day}T00:00:00Z`);

/**
 * Covers the inclusive days `from`..`to` with the largest periods of `grains` that fit, left to
 * right (a month where a whole month fits, else a week of a month, else a day), as runs of one
 * grain each: at most five (days, weeks, months, weeks, days), whatever the range's length.
 */
export function coverDays(from: string, to: string, grains: ReadonlySet<Grain>): PeriodRun[] {
  const runs: PeriodRun[] = [];
  const end = dayAt(to);
  for (let cursor = dayAt(from); cursor <= end; ) {
    const day = formatDay(cursor);
    const monthEnd = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)), 1) - dayMs;
    const weekEnd = weekOf(day) === day ? (day.endsWith('22') ? monthEnd : cursor + 6 * dayMs) : -1;
    let grain: Grain = 'day';
    let next = cursor + dayMs;
    if (grains.has('month') && day.endsWith('-01') && monthEnd <= end) [grain, next] = ['month', monthEnd + dayMs];
    else if (grains.has('week') && weekEnd >= 0 && weekEnd <= end) [grain, next] = ['week', weekEnd + dayMs];
    const last = runs.at(-1);
    if (last && last.grain === grain) last.last = day;
    else runs.push({ grain, first: day, last: day });
    cursor = next;
  }
  return runs;
}
