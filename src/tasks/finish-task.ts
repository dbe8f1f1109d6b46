import type { AppContext } from '../app-context.js';
import { rollUpRequests } from '../billing/roll-up-requests.js';
import { readIdTime } from '../core/id-time.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import { settleReservation } from '../store/repositories/ledger.js';
import { insertRequests, type RequestRecord } from '../store/repositories/requests.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { finishTask, setTaskCost } from '../store/repositories/tasks.js';
import { addUsageRollups } from '../store/repositories/usage-rollups.js';
import type { TaskRecord } from './task-types.js';

export type TaskEnding =
  | { status: 'completed'; cost: bigint; result: Record<string, unknown> }
  | { status: 'failed'; error: string; errorCode: RequestLogErrorCode };

/**
 * Ends a task in one transaction: the compare-and-set to its terminal state, the settlement of
 * its reservation (the cost, at most what was reserved; nothing on failure) and its request log
 * row with the usage rollup. Either all of it happens once or none of it does: a second caller
 * (another instance whose lease ran out, a retry after a lost commit) finds the task terminal
 * and changes nothing. Answers the amount charged, or null when someone else ended the task.
 */
export async function endTask(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  task: TaskRecord,
  ending: TaskEnding,
  options: { rowVersion?: number; endpoint: string },
): Promise<bigint | null> {
  const now = context.clock.now();
  const wanted = ending.status === 'completed' ? (ending.cost < task.reserved || task.reservationId === null ? ending.cost : task.reserved) : 0n;
  // Rolled back whole on a conflict, so run again; the compare-and-set keeps it once.
  return retryOnConflict(() => context.store.db.transaction().execute(async (trx) => {
    const won = await finishTask(trx, {
      id: task.id,
      rowVersion: options.rowVersion,
      status: ending.status,
      cost: wanted,
      error: ending.status === 'failed' ? ending.error : null,
      result: ending.status === 'completed' ? ending.result : null,
      progress: ending.status === 'completed' ? 100 : task.progress,
      now: now.toISOString(),
    });
    if (!won) return null;
    let charged = 0n;
    if (task.reservationId !== null) {
      const settled = await settleReservation(trx, { reservationId: task.reservationId, cost: wanted, ledgerId: context.createId('led'), createdAt: now.toISOString() });
      // Null: the reservation outlived its bound and the sweeper released it; nothing can be charged.
      charged = settled ?? 0n;
    }
    if (charged !== wanted) await setTaskCost(trx, task.id, charged);
    const record = toRequestRecord(task, ending, charged, now, options.endpoint);
    // A row already under this id (written by an older version) keeps the statistics as they are.
    if ((await insertRequests(trx, [record])).length === 1) {
      const deltas = rollUpRequests([record]);
      if (deltas.length > 0) await addUsageRollups(trx, deltas);
    }
    return charged;
  }));
}

/** The task's row in the request log, under the id of the request that created it. */
function toRequestRecord(task: TaskRecord, ending: TaskEnding, cost: bigint, now: Date, endpoint: string): RequestRecord {
  const id = task.requestId ?? task.id;
  const createdAt = new Date(readIdTime(id) ?? Date.parse(task.createdAt)).toISOString();
  return {
    id,
    accountId: task.accountId,
    keyId: task.keyId,
    model: task.model,
    provider: task.provider,
    endpoint,
    streamed: false,
    status: ending.status,
    errorCode: ending.status === 'failed' ? ending.errorCode : null,
    latencyMs: Math.max(0, now.getTime() - Date.parse(task.createdAt)),
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost,
    estimated: false,
    createdAt,
  };
}
