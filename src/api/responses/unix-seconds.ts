import type { Clock } from '../../core/clock.js';

/** OpenAI's timestamps (`created_at`, `completed_at`) are whole Unix seconds. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}
