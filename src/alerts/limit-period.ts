export type LimitReset = 'daily' | 'weekly' | 'monthly' | null;

/**
 * The period a limit's usage is counted in, as the key of its alert state: '' for a lifetime
 * limit, else the day its current period started (contract §8: 00:00 UTC; weekly on Monday;
 * monthly on the 1st). A key-limit alert fires once per crossing within a period, and the new
 * period's key lets it fire again after a reset. Keys answer `null` until limits that reset
 * (issue 49, scope 1) give them a `limit_reset`.
 */
export function limitPeriodKey(reset: LimitReset, now: Date): string {
  if (reset === null) return '';
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (reset === 'weekly') start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  if (reset === 'monthly') start.setUTCDate(1);
  return `${reset}:${start.toISOString().slice(0, 10)}`;
}
