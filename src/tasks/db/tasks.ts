import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import type { TaskRecord, TaskStatus } from '../task-types.js';
import type { Dialect } from '../../store/create-store.js';
import type { Database, TasksTable } from '../../store/database.js';
import { toBigInt, toNumber } from '../../store/convert.js';

const openStatuses: TaskStatus[] = ['queued', 'in_progress'];

/** A task as inserted: queued, with no attempts, cost or result yet. */
export interface NewTaskRow
  extends Pick<
    TaskRecord,
    'id' | 'accountId' | 'keyId' | 'kind' | 'model' | 'provider' | 'input' | 'providerJobId' | 'reservationId' | 'reserved' | 'idempotencyKey' | 'requestId' | 'createdAt'
  > {
  nextPollAt: string;
  /** Held while the creating request submits the job, so that no worker polls it meanwhile. */
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  expiresAt: string;
}

/**
 * Inserts a queued task. Answers false, inserting nothing, when the account already has a task
 * under the same idempotency key (the unique index decides, also between instances).
 */
export async function insertTask(db: Kysely<Database>, task: NewTaskRow): Promise<boolean> {
  const result = await db
    .insertInto('tasks')
    .values({
      id: task.id,
      account_id: task.accountId,
      key_id: task.keyId,
      kind: task.kind,
      model: task.model,
      provider: task.provider,
      status: 'queued',
      progress: 0,
      input: JSON.stringify(task.input),
      provider_job_id: task.providerJobId,
      reservation_id: task.reservationId,
      reserved: task.reserved,
      idempotency_key: task.idempotencyKey,
      attempts: 0,
      next_poll_at: task.nextPollAt,
      lease_owner: task.leaseOwner,
      lease_expires_at: task.leaseExpiresAt,
      created_at: task.createdAt,
      updated_at: task.createdAt,
      request_id: task.requestId,
      expires_at: task.expiresAt,
    })
    .onConflict((conflict) => conflict.columns(['account_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findTaskForAccount(db: Kysely<Database>, accountId: string, id: string): Promise<TaskRecord | undefined> {
  const row = await db.selectFrom('tasks').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row ? toTaskRecord(row) : undefined;
}

export async function findTaskByIdempotencyKey(db: Kysely<Database>, accountId: string, key: string): Promise<TaskRecord | undefined> {
  const row = await db.selectFrom('tasks').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();
  return row ? toTaskRecord(row) : undefined;
}

/**
 * Leases up to `limit` open tasks that are due and not leased to `owner`, bumping their row
 * version. A lease is free when it ran out, or when its holder is no longer a registered instance
 * (the ledger's sweep removes instances whose heartbeat stopped: after a kill -9 their tasks need
 * not wait for the lease to run out). One statement: on PostgreSQL the inner select locks the
 * rows it picks and skips rows another instance is claiming (`FOR UPDATE SKIP LOCKED`); SQLite
 * runs one writer at a time, and the outer condition repeats the lease test either way.
 */
export async function claimDueTasks(
  db: Kysely<Database>,
  dialect: Dialect,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<TaskRecord[]> {
  let due = db
    .selectFrom('tasks')
    .select('id')
    .where('status', 'in', openStatuses)
    .where('next_poll_at', '<=', claim.now)
    .where((eb) => isLeaseFree(eb, claim.now))
    .orderBy('next_poll_at')
    .limit(claim.limit);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('tasks')
    .set((eb) => ({ lease_owner: claim.owner, lease_expires_at: claim.leaseUntil, row_version: eb('row_version', '+', 1) }))
    .where('id', 'in', due)
    .where('status', 'in', openStatuses)
    .where((eb) => isLeaseFree(eb, claim.now))
    .returningAll()
    .execute();
  return rows.map(toTaskRecord).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** No lease, a lease that ran out, or one whose holder is no longer a registered instance. */
function isLeaseFree(eb: ExpressionBuilder<Database, 'tasks'>, now: string): Expression<SqlBool> {
  return eb.or([
    eb('lease_expires_at', 'is', null),
    eb('lease_expires_at', '<', now),
    eb.not(eb.exists(eb.selectFrom('instances').select('instances.id').whereRef('instances.id', '=', 'tasks.lease_owner'))),
  ]);
}

/**
 * Records a poll that left the task open and hands the lease back. Only the lease holder, with
 * the row version it claimed, may do it; answers false when someone else has moved the task on.
 */
export async function recordPendingPoll(
  db: Kysely<Database>,
  update: { id: string; owner: string; rowVersion: number; status: TaskStatus; progress: number; attempts: number; nextPollAt: string; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('tasks')
    .set((eb) => ({
      status: update.status,
      progress: update.progress,
      attempts: update.attempts,
      next_poll_at: update.nextPollAt,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: update.now,
      row_version: eb('row_version', '+', 1),
    }))
    .where('id', '=', update.id)
    .where('lease_owner', '=', update.owner)
    .where('row_version', '=', update.rowVersion)
    .where('status', 'in', openStatuses)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The one terminal transition: open → completed | failed, by compare-and-set on the status and
 * (when given) the row version. Exactly one caller ever gets true for a task, which is what
 * makes its settlement exactly-once. Run it in the transaction that settles the reservation.
 */
export async function finishTask(
  db: Kysely<Database>,
  finish: { id: string; rowVersion?: number; status: 'completed' | 'failed'; cost: bigint; error: string | null; result: Record<string, unknown> | null; progress: number; now: string },
): Promise<boolean> {
  let query = db
    .updateTable('tasks')
    .set((eb) => ({
      status: finish.status,
      cost: finish.cost,
      error: finish.error,
      result: finish.result === null ? null : JSON.stringify(finish.result),
      progress: finish.progress,
      completed_at: finish.now,
      updated_at: finish.now,
      lease_owner: null,
      lease_expires_at: null,
      row_version: eb('row_version', '+', 1),
    }))
    .where('id', '=', finish.id)
    .where('status', 'in', openStatuses);
  if (finish.rowVersion !== undefined) query = query.where('row_version', '=', finish.rowVersion);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The cost actually charged, when the ledger charged less than the task asked (capped by the reservation). */
export async function setTaskCost(db: Kysely<Database>, id: string, cost: bigint): Promise<void> {
  await db.updateTable('tasks').set({ cost }).where('id', '=', id).execute();
}

/** The creating request got the provider's job id: the task becomes an ordinary polled task. */
export async function recordSubmission(
  db: Kysely<Database>,
  submission: { id: string; owner: string; providerJobId: string; status: TaskStatus; progress: number; nextPollAt: string; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('tasks')
    .set((eb) => ({
      provider_job_id: submission.providerJobId,
      status: submission.status,
      progress: submission.progress,
      next_poll_at: submission.nextPollAt,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: submission.now,
      row_version: eb('row_version', '+', 1),
    }))
    .where('id', '=', submission.id)
    .where('lease_owner', '=', submission.owner)
    .where('provider_job_id', 'is', null)
    .where('status', 'in', openStatuses)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Before submission, the creating request moved to another endpoint (fail-over) with its own reservation. */
export async function rerouteUnsubmittedTask(
  db: Kysely<Database>,
  route: { id: string; owner: string; model: string; provider: string; input: Record<string, unknown>; reservationId: string | null; reserved: bigint; now: string },
): Promise<boolean> {
  const result = await db
    .updateTable('tasks')
    .set((eb) => ({
      model: route.model,
      provider: route.provider,
      input: JSON.stringify(route.input),
      reservation_id: route.reservationId,
      reserved: route.reserved,
      updated_at: route.now,
      row_version: eb('row_version', '+', 1),
    }))
    .where('id', '=', route.id)
    .where('lease_owner', '=', route.owner)
    .where('provider_job_id', 'is', null)
    .where('status', 'in', openStatuses)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A task whose job no provider accepted disappears, freeing its idempotency key for a retry. */
export async function deleteUnsubmittedTask(db: Kysely<Database>, id: string, owner: string): Promise<boolean> {
  const result = await db
    .deleteFrom('tasks')
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('provider_job_id', 'is', null)
    .where('status', 'in', openStatuses)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Gives up a lease without polling (shutdown, a kind this instance has no handler for). */
export async function releaseTaskLease(db: Kysely<Database>, release: { id: string; owner: string; nextPollAt: string }): Promise<void> {
  await db
    .updateTable('tasks')
    .set({ lease_owner: null, lease_expires_at: null, next_poll_at: release.nextPollAt })
    .where('id', '=', release.id)
    .where('lease_owner', '=', release.owner)
    .where('status', 'in', openStatuses)
    .execute();
}

export function toTaskRecord(row: Selectable<TasksTable>): TaskRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    kind: row.kind,
    model: row.model,
    provider: row.provider,
    status: row.status as TaskStatus,
    progress: toNumber(row.progress),
    input: parseObject(row.input) ?? {},
    providerJobId: row.provider_job_id,
    reservationId: row.reservation_id,
    reserved: toBigInt(row.reserved),
    cost: row.cost === null ? null : toBigInt(row.cost),
    error: row.error,
    result: row.result === null ? null : parseObject(row.result),
    idempotencyKey: row.idempotency_key,
    attempts: toNumber(row.attempts),
    requestId: row.request_id ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    expiresAt: row.expires_at ?? null,
    rowVersion: toNumber(row.row_version),
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
