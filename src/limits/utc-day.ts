/** `YYYY-MM-DD` of the UTC day `date` falls in. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Whole seconds until the next 00:00 UTC (at least 1). */
export function secondsUntilUtcMidnight(date: Date): number {
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - date.getTime()) / 1000));
}
