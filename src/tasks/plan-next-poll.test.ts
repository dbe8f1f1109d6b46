import { describe, expect, it } from 'vitest';
import { defaultTaskSchedule, planBackoffDelay, planPendingDelay } from './plan-next-poll.js';

const schedule = { ...defaultTaskSchedule, minPollMs: 2_000, maxPollMs: 30_000, maxBackoffMs: 60_000 };

describe('planPendingDelay', () => {
  it('polls young tasks often and old ones less, within the bounds, with ±10 % jitter', () => {
    expect(planPendingDelay(schedule, 5_000, undefined, () => 0.5)).toBe(2_000);
    expect(planPendingDelay(schedule, 100_000, undefined, () => 0.5)).toBe(10_000);
    expect(planPendingDelay(schedule, 3_600_000, undefined, () => 0.5)).toBe(30_000);
    expect(planPendingDelay(schedule, 100_000, undefined, () => 0)).toBe(9_000);
    expect(planPendingDelay(schedule, 100_000, undefined, () => 0.999_999)).toBe(11_000);
  });

  it("waits at least as long as the provider's hint", () => {
    expect(planPendingDelay(schedule, 5_000, 45_000, () => 0.5)).toBe(45_000);
    expect(planPendingDelay(schedule, 100_000, 1_000, () => 0.5)).toBe(10_000);
  });
});

describe('planBackoffDelay', () => {
  it('doubles from the shortest interval up to the cap, with equal jitter', () => {
    const fixed = (attempts: number) => planBackoffDelay(schedule, attempts, undefined, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(fixed)).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(planBackoffDelay(schedule, 3, undefined, () => 0)).toBe(4_000);
  });

  it('honours Retry-After when it is longer', () => {
    expect(planBackoffDelay(schedule, 1, 120_000, () => 0.5)).toBe(120_000);
    expect(planBackoffDelay(schedule, 6, 1_000, () => 1)).toBe(60_000);
  });
});
