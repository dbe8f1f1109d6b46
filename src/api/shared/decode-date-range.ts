import { invalidRequest } from '../../errors/gateway-error.js';

export const dayMs = 86_400_000;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An inclusive range of UTC days, as 00:00 UTC of its first day and of the day after its last. */
export interface DayRange {
  startMs: number;
  endMs: number;
}

/**
 * Decodes `?from=&to=` (YYYY-MM-DD, UTC, both inclusive). A missing side takes its default; a
 * string that is not a real calendar day, `from` after `to`, or a range longer than `maxDays`
 * is 400 naming the parameter.
 */
export function decodeDayRange(
  query: { from?: string; to?: string },
  defaults: { from: (toMs: number) => number; to: number },
  maxDays = Number.POSITIVE_INFINITY,
): DayRange {
  const toMs = query.to === undefined ? defaults.to : parseUtcDay(query.to, 'to');
  const startMs = query.from === undefined ? defaults.from(toMs) : parseUtcDay(query.from, 'from');
  if (startMs > toMs) throw invalidRequest("'from' must not be after 'to'", 'from');
  if ((toMs - startMs) / dayMs + 1 > maxDays) throw invalidRequest(`A range may span at most ${maxDays} days`, 'from');
  return { startMs, endMs: toMs + dayMs };
}

/** 00:00 UTC of a YYYY-MM-DD day. */
export function parseUtcDay(value: string, param: string): number {
  const match = datePattern.exec(value);
  const milliseconds = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Date.UTC rolls 2026-02-30 over into March; only a real day formats back to itself.
  if (!match || Number.isNaN(milliseconds) || formatUtcDay(milliseconds) !== value) {
    throw invalidRequest(`'${param}' must be a date as YYYY-MM-DD (UTC), got '${value.slice(0, 40)}'`, param);
  }
  return milliseconds;
}

export function formatUtcDay(milliseconds: number): string {
  return new Date(milliseconds).toISOString().slice(0, 10);
}

export function startOfUtcDay(milliseconds: number): number {
  return Math.floor(milliseconds / dayMs) * dayMs;
}
