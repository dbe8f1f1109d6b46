export type LimitReset = 'daily' | 'weekly' | 'monthly' | null;

/**
 * The period a limit's usage is counted in, as the key of its alert state: '' for a lifetime
 * limit, else the day its current period started (contract §8: 00:00 UTC; weekly on Monday;
 * monthly on the 1st). A key-limit alert fires once per crossing within a period, and the new
 * period's key lets it fire again after a reset.
 */
export function limitPeriodKey(reset: LimitReset, now: Date): string {
  if (reset === null) return '';
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (reset === 'weekly') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  if (reset === 'monthly') start.setUTCDate(1);
  return `${reset}:${start.toISOString().slice(0, 10)}`;
}

/**
 * What a limit counts now: its stored period's usage, or 0 when the stored period is an older
 * one than `period` (the roll-over, done before an instance's first charge of the day, has not
 * reached the row yet; no charge of the new period is in it).
 */
export function usageInPeriod(limit: { limitReset: string | null; periodStart: string | null; periodUsage: bigint }, period: string): bigint {
  if (limit.limitReset === null || limit.periodStart === null) return limit.periodUsage;
  return limit.periodStart.slice(0, 10) < period.slice(period.indexOf(':') + 1) ? 0n : limit.periodUsage;
}
