import type { Clock } from '../../src/core/clock.js';

/** A clock the test moves by hand (task polls become due); the simulator keeps real time. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start = Date.parse('2026-11-21T12:00:00.000Z')) {
    this.current = start;
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
