import { describe, expect, it } from 'vitest';
import { limitPeriodKey, usageInPeriod } from './limit-period.js';

describe('limitPeriodKey', () => {
  const sunday = new Date('2026-12-06T23:59:59.999Z');
  const monday = new Date('2026-12-07T00:00:00.000Z');

  it('is empty for a lifetime limit, so its alert fires once until re-armed', () => {
    expect(limitPeriodKey(null, monday)).toBe('');
  });

  it('changes at 00:00 UTC, on Monday and on the 1st', () => {
    expect(limitPeriodKey('daily', sunday)).toBe('daily:2026-12-06');
    expect(limitPeriodKey('daily', monday)).toBe('daily:2026-12-07');
    expect(limitPeriodKey('weekly', sunday)).toBe('weekly:2026-11-30');
    expect(limitPeriodKey('weekly', monday)).toBe('weekly:2026-12-07');
    expect(limitPeriodKey('monthly', new Date('2026-11-30T23:00:00Z'))).toBe('monthly:2026-11-01');
    expect(limitPeriodKey('monthly', new Date('2026-12-01T00:00:00Z'))).toBe('monthly:2026-12-01');
  });
});

describe('usageInPeriod', () => {
  const stored = { limitReset: 'daily', periodStart: '2026-12-07T00:00:00.000Z', periodUsage: 5n };

  it('is the stored period usage within the stored period, and a lifetime limit its usage', () => {
    expect(usageInPeriod(stored, 'daily:2026-12-07')).toBe(5n);
    expect(usageInPeriod({ limitReset: null, periodStart: null, periodUsage: 9n }, '')).toBe(9n);
  });

  it('is 0 when the stored period is older than the current one (not rolled yet)', () => {
    expect(usageInPeriod(stored, 'daily:2026-12-08')).toBe(0n);
    expect(usageInPeriod({ ...stored, limitReset: 'weekly' }, 'weekly:2026-12-14')).toBe(0n);
  });
});
