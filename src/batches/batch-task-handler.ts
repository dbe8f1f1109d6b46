import type { AppContext } from '../app-context.js';
import type { TaskHandler } from '../tasks/task-types.js';
import type { LineHandlers } from './line-executor.js';
import { stepBatch } from './run-batch.js';

/** How often a batch whose only lines left are in provider batches asks the provider again. */
const providerPollMs = 5_000;

/** A batch's task: long enough for the completion window (24 h) and the finalization after it. */
const batchMaxAgeMs = 26 * 60 * 60 * 1000;

/**
 * The task that runs a batch (`tasks.kind = 'batch'`, one per batch): each poll is one step of
 * `stepBatch` under the task's lease, so one instance at a time runs a batch's lines, and any
 * instance picks the batch up after a restart. Not a paid call itself (`paid: false`): each line
 * is one, reserved, charged and logged on its own: on the engine through the live path
 * (`handlers.run`), in a provider's batch API through the endpoint's live codec (`handlers.codec`).
 */
export function createBatchTaskHandler(handlers: LineHandlers): TaskHandler<AppContext> {
  return {
    kind: 'batch',
    endpoint: '/batches',
    paid: false,
    schedule: { maxAgeMs: batchMaxAgeMs, firstPollMs: 0, minPollMs: 100, maxPollMs: 1_000, maxBackoffMs: 30_000 },
    async poll(task, context, { signal }) {
      const batchId = task.input.batchId as string;
      const step = await stepBatch(context, batchId, handlers, signal);
      if (step === 'ended') return { state: 'completed', cost: 0n, result: { batchId } };
      return { state: 'pending', started: true, retryAfterMs: step === 'waiting' ? providerPollMs : 0 };
    },
  };
}
