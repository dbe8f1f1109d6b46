/** A limit's reset period (contract §8, OpenRouter's names); null: a lifetime total. */
export type LimitReset = 'daily' | 'weekly' | 'monthly' | null;

export const resetNames: Record<'daily' | 'weekly' | 'monthly', string> = { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly' };

/**
 * When the current period ends: the next 00:00 UTC, the next Monday 00:00 UTC, or the 1st of next
 * month 00:00 UTC — the boundaries the server counts by (docs/api.md "Limits that reset").
 */
export function nextReset(reset: 'daily' | 'weekly' | 'monthly', now: Date = new Date()): Date {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (reset === 'daily') return new Date(day + 86_400_000);
  if (reset === 'weekly') {
    const daysToMonday = (8 - now.getUTCDay()) % 7 || 7;
    return new Date(day + daysToMonday * 86_400_000);
  }
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
