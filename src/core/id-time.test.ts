import { describe, expect, it } from 'vitest';
import { idFloorAt, readIdTime } from './id-time.js';
import { createId } from './ids.js';

describe('id time', () => {
  it('reads back the time createId encoded', () => {
    const now = Date.UTC(2026, 10, 21, 23, 59, 59, 999);
    expect(readIdTime(createId('req', now))).toBe(now);
    expect(readIdTime('req_not-an-id')).toBeUndefined();
    expect(readIdTime('plain')).toBeUndefined();
  });

  it('orders floors with the ids of the same instant and after it', () => {
    const at = Date.UTC(2026, 0, 1);
    const floor = idFloorAt('req', at);
    expect(createId('req', at) >= floor).toBe(true);
    expect(createId('req', at - 1) < floor).toBe(true);
    expect(createId('req', at + 86_400_000) > floor).toBe(true);
  });
});
