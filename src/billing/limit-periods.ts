/**
 * The periods a key's limit resets on (contract §8, OpenRouter's names): each starts at 00:00
 * UTC — `daily` every day, `weekly` on Monday, `monthly` on the 1st. Judged by the context
 * clock (`context.clock`), so tests cross a boundary by moving it.
 */
export type LimitReset = 'daily' | 'weekly' | 'monthly';

export const limitResets: readonly LimitReset[] = ['daily', 'weekly', 'monthly'];

const dayMs = 24 * 60 * 60 * 1000;

/** The start of the period of `kind` that contains `now`. */
export function periodStart(kind: LimitReset, now: Date): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (kind === 'daily') return new Date(day);
  if (kind === 'weekly') return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * dayMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The start of the next period of `kind` after the one containing `now`: when the limit resets. */
export function nextPeriodStart(kind: LimitReset, now: Date): Date {
  const start = periodStart(kind, now);
  if (kind === 'daily') return new Date(start.getTime() + dayMs);
  if (kind === 'weekly') return new Date(start.getTime() + 7 * dayMs);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** The current period start of each kind, as stored in `api_keys.period_start` (ISO 8601). */
export interface PeriodStarts {
  daily: string;
  weekly: string;
  monthly: string;
}

export function periodStarts(now: Date): PeriodStarts {
  return {
    daily: periodStart('daily', now).toISOString(),
    weekly: periodStart('weekly', now).toISOString(),
    monthly: periodStart('monthly', now).toISOString(),
  };
}
