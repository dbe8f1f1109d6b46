import { describe, expect, it } from 'vitest';
import { limitPeriodKey } from './limit-period.js';

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
