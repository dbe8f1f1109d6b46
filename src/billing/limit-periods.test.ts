import { describe, expect, it } from 'vitest';
import { nextPeriodStart, periodStart, periodStarts } from './limit-periods.js';

describe('limit periods', () => {
  it('start at 00:00 UTC: every day, on Monday, on the 1st', () => {
    const now = new Date('2026-12-09T17:30:00.000Z'); // a Wednesday
    expect(periodStarts(now)).toEqual({ daily: '2026-12-09T00:00:00.000Z', weekly: '2026-12-07T00:00:00.000Z', monthly: '2026-12-01T00:00:00.000Z' });
    expect(periodStart('weekly', new Date('2026-12-07T00:00:00.000Z')).toISOString()).toBe('2026-12-07T00:00:00.000Z');
    expect(periodStart('weekly', new Date('2026-12-06T23:59:59.999Z')).toISOString()).toBe('2026-11-30T00:00:00.000Z');
  });

  it('reset at the next start, across a month and a year', () => {
    expect(nextPeriodStart('daily', new Date('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextPeriodStart('weekly', new Date('2026-12-31T10:00:00.000Z')).toISOString()).toBe('2027-01-04T00:00:00.000Z');
    expect(nextPeriodStart('monthly', new Date('2026-12-15T10:00:00.000Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextPeriodStart('monthly', new Date('2027-01-31T10:00:00.000Z')).toISOString()).toBe('2027-02-01T00:00:00.000Z');
  });
});
