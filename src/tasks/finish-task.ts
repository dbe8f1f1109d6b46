import { settleInTransaction } from '../billing/settle-in-transaction.js';
import { keyPeriodsDue } from '../billing/roll-key-periods.js';
import type { Clock } from '../core/clock.js';
import { readIdTime } from '../core/id-time.js';
import type { IdGenerator } from '../core/ids.js';
import type { RequestRecord } from '../billing/request-record.js';
import { ERROR_MESSAGE_MAX_CHARS } from '../billing/start-request-record.js';
import type { RequestLogErrorCode } from '../errors/request-log-codes.js';
import type { Store } from '../store/create-store.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { finishTask, setTaskCost } from './db/tasks.js';
import type { TaskRecord } from './task-types.js';

/** The services ending a task uses. */
export interface TaskEndingDependencies {
  store: Store;
  clock: Clock;
  createId: IdGenerator;
}

export type TaskEnding =
  | { status: 'completed'; cost: bigint; result: Record<string, unknown> }
  | { status: 'failed'; error: string; errorCode: RequestLogErrorCode };

/**
 * Ends a task in one transaction: the compare-and-set to its terminal state, then the
 * settlement of its reservation with its request log row and usage rollup through the books'
 * one settle rule (the cost, from the reservation first and then the free funds; what they
 * cannot cover is booked uncollected; nothing on failure). Either all of it happens once or
 * none of it does: a second caller (another instance whose lease ran out, a retry after a lost
 * commit) finds the task terminal and changes nothing. Answers the amount charged, or null when
 * someone else ended the task. A task of an unpaid kind (`paid: false`) ends with the
 * compare-and-set alone.
 */
export async function endTask(
  context: TaskEndingDependencies,
  task: TaskRecord,
  ending: TaskEnding,
  options: { rowVersion?: number; endpoint: string; paid?: boolean },
): Promise<bigint | null> {
  const now = context.clock.now();
  const cost = ending.status === 'completed' ? ending.cost : 0n;
  // A new UTC day's key limit periods start before its first charge, outside the transaction
  // (the roll locks keys only, in id order), as the books writer does (issue 49).
  const due = keyPeriodsDue(context.store, now);
  if (due) await due;
  // Rolled back whole on a conflict, so run again; the compare-and-set keeps it once.
  return retryOnConflict(() => context.store.db.transaction().execute(async (trx) => {
    const won = await finishTask(trx, {
      id: task.id,
      rowVersion: options.rowVersion,
      status: ending.status,
      cost,
      error: ending.status === 'failed' ? ending.error : null,
      result: ending.status === 'completed' ? ending.result : null,
      progress: ending.status === 'completed' ? 100 : task.progress,
      now: now.toISOString(),
    });
    if (!won) return null;
    if (options.paid === false) return 0n;
    const record = toRequestRecord(task, ending, cost, now, options.endpoint);
    const [outcome] = await settleInTransaction(context.store, trx, {
      items: [{ row: record, settlement: { reservationId: task.reservationId, accountId: task.accountId, keyId: task.keyId, requestId: record.id, cost } }],
      createdAt: now.toISOString(),
      ledgerId: () => context.createId('led'),
    });
    // Not applied: a row under this id was already logged (an older version wrote it), and the
    // books never settle a logged request twice; its reservation is released when it expires.
    const charged = outcome.applied ? outcome.charged : 0n;
    if (charged !== cost) await setTaskCost(trx, task.id, charged);
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
    // What GET of the task shows as its error, bounded as a generation row's message is.
    errorMessage: ending.status === 'failed' ? ending.error.slice(0, ERROR_MESSAGE_MAX_CHARS) : null,
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
