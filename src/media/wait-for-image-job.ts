import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { ImageJobState } from '../core/image-request.js';
import type { ImageAdapter } from '../providers/media-adapter.js';
import type { CallContext } from '../providers/provider-adapter.js';
import { toAbortSignal } from '../core/cancel-signal.js';

/**
 * Polls a queued provider job while the client waits, until it ends or `windowMs` passes; then
 * answers the last state (still `pending` when the window ran out). A client that leaves does
 * not stop the job, which the provider will charge for: the wait ends early with the job still
 * `pending`, so that it continues as a task and is settled like any other.
 */
export async function waitForImageJob(
  state: ImageJobState,
  adapter: ImageAdapter,
  call: CallContext,
  timing: { windowMs: number; pollIntervalMs: number },
): Promise<ImageJobState> {
  const deadline = performance.now() + timing.windowMs;
  let current = state;
  while (current.state === 'pending' && adapter.poll) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return current;
    try {
      await sleep(Math.min(timing.pollIntervalMs, remaining), undefined, { signal: toAbortSignal(call.signal) });
      current = await adapter.poll(current.job, call);
    } catch (error) {
      if (call.signal.aborted) return current;
      throw error;
    }
  }
  return current;
}
