import type { TaskSchedule } from './task-types.js';

export const defaultTaskSchedule: TaskSchedule = {
  maxAgeMs: 2 * 60 * 60 * 1000,
  firstPollMs: 2_000,
  minPollMs: 2_000,
  maxPollMs: 30_000,
  maxBackoffMs: 60_000,
};

/**
 * The pause before polling a pending task again. Young tasks are polled often, old ones less
 * (a tenth of the task's age, between the schedule's bounds), so that a 2-minute video costs a
 * few dozen polls and an hour-long one not thousands. A provider's own hint wins when it asks
 * for more patience. ±10 % jitter keeps tasks created together from being polled together.
 */
export function planPendingDelay(schedule: TaskSchedule, ageMs: number, retryAfterMs: number | undefined, random: () => number): number {
  const base = clamp(Math.floor(ageMs / 10), schedule.minPollMs, schedule.maxPollMs);
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/**
 * The pause after `attempts` failed polls in a row (provider down, 5xx, timeouts): exponential
 * from the shortest poll interval up to `maxBackoffMs`, with "equal jitter" (half fixed, half
 * random) so that instances recovering from one outage do not all come back at the same
 * instant. The provider's Retry-After is honoured when it is longer.
 */
export function planBackoffDelay(schedule: TaskSchedule, attempts: number, retryAfterMs: number | undefined, random: () => number): number {
  const exponential = Math.min(schedule.maxBackoffMs, schedule.minPollMs * 2 ** Math.min(Math.max(attempts - 1, 0), 20));
  const jittered = Math.round(exponential / 2 + (exponential / 2) * random());
  return Math.max(jittered, retryAfterMs ?? 0);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}
