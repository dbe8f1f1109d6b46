import { sql, type Kysely, type Selectable } from 'kysely';
import type { BatchesTable, Database } from '../../store/database.js';
import { toNumber } from '../../store/convert.js';

/** OpenAI's batch statuses (https://platform.openai.com/docs/api-reference/batch/object). */
export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';

/** Which API made a batch: OpenAI's `/v1/batches` or Anthropic's `/v1/messages/batches` (ids `msgbatch_…`); each lists only its own. */
export type BatchKind = 'batch' | 'message_batch';

/** One of OpenAI's batch errors: a line that cannot run, named by its number (1-based). */
export interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

export interface BatchRecord {
  id: string;
  accountId: string;
  keyId: string;
  endpoint: string;
  inputFileId: string;
  completionWindow: string;
  status: BatchStatus;
  metadata: Record<string, string> | null;
  errors: BatchError[] | null;
  total: number;
  completed: number;
  failed: number;
  outputFileId: string | null;
  errorFileId: string | null;
  createdAt: string;
  expiresAt: string;
  inProgressAt: string | null;
  finalizingAt: string | null;
  completedAt: string | null;
  failedAt: string | null;
  expiredAt: string | null;
  cancellingAt: string | null;
  cancelledAt: string | null;
}

export async function insertBatch(
  db: Kysely<Database>,
  batch: Pick<BatchRecord, 'id' | 'accountId' | 'keyId' | 'endpoint' | 'inputFileId' | 'completionWindow' | 'metadata' | 'createdAt' | 'expiresAt'> & { kind: BatchKind },
): Promise<void> {
  await db
    .insertInto('batches')
    .values({
      id: batch.id,
      account_id: batch.accountId,
      key_id: batch.keyId,
      endpoint: batch.endpoint,
      input_file_id: batch.inputFileId,
      completion_window: batch.completionWindow,
      kind: batch.kind,
      status: 'validating',
      metadata: batch.metadata === null ? null : JSON.stringify(batch.metadata),
      errors: null,
      created_at: batch.createdAt,
      expires_at: batch.expiresAt,
    })
    .execute();
}

/** The account's batch; another account's id finds nothing. */
export async function findBatch(db: Kysely<Database>, accountId: string, id: string): Promise<BatchRecord | undefined> {
  const row = await db.selectFrom('batches').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return row && toBatch(row);
}

/** A batch by id alone: for its runner, which was handed the id by the batch's own task. */
export async function findBatchById(db: Kysely<Database>, id: string): Promise<BatchRecord | undefined> {
  const row = await db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toBatch(row);
}

/**
 * Newest first, as OpenAI lists them; `after` is the last id of the previous page (ids are
 * time-ordered). Only OpenAI-shaped batches (`kind = 'batch'`, the index `(account_id, kind,
 * id)`): Message Batches are listed by `listMessageBatches`, and however many an account has, this
 * walk never reads them.
 */
export async function listBatches(db: Kysely<Database>, accountId: string, options: { limit: number; after?: string }): Promise<BatchRecord[]> {
  let query = db.selectFrom('batches').selectAll().where('account_id', '=', accountId).where('kind', '=', 'batch');
  if (options.after !== undefined) query = query.where('id', '<', options.after);
  const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map(toBatch);
}

/** Validation passed: the batch has its lines and runs. */
export async function startBatch(db: Kysely<Database>, id: string, total: number, now: string): Promise<void> {
  await db.updateTable('batches').set({ status: 'in_progress', total, in_progress_at: now }).where('id', '=', id).where('status', '=', 'validating').execute();
}

/** Validation failed: the batch ends `failed` with the lines' errors, and no line runs. */
export async function failBatchValidation(db: Kysely<Database>, id: string, errors: BatchError[], total: number, now: string): Promise<void> {
  await db
    .updateTable('batches')
    .set({ status: 'failed', errors: JSON.stringify(errors), total, failed_at: now })
    .where('id', '=', id)
    .where('status', '=', 'validating')
    .execute();
}

/** Asks a running batch to stop; answers whether it was running (a finished batch stays as it is). */
export async function requestCancel(db: Kysely<Database>, accountId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('batches')
    .set({ status: 'cancelling', cancelling_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', 'in', ['validating', 'in_progress'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Counts a line's end into the batch's live `request_counts`. */
export async function countLineEnd(db: Kysely<Database>, id: string, outcome: 'completed' | 'failed'): Promise<void> {
  const query = db.updateTable('batches').where('id', '=', id);
  if (outcome === 'completed') await query.set({ completed: sql`completed + 1` }).execute();
  else await query.set({ failed: sql`failed + 1` }).execute();
}

/** Moves the batch from one status to the next (a compare-and-set on the status) with that status's timestamp. */
export async function moveBatch(
  db: Kysely<Database>,
  id: string,
  from: readonly BatchStatus[],
  to: { status: BatchStatus; at: string; outputFileId?: string | null; errorFileId?: string | null; failedLines?: number },
): Promise<boolean> {
  const stamp = stampOf(to.status);
  let query = db.updateTable('batches').set({ status: to.status }).where('id', '=', id).where('status', 'in', from);
  if (stamp) query = query.set({ [stamp]: to.at });
  if (to.outputFileId !== undefined) query = query.set({ output_file_id: to.outputFileId });
  if (to.errorFileId !== undefined) query = query.set({ error_file_id: to.errorFileId });
  if (to.failedLines) query = query.set({ failed: sql`failed + ${to.failedLines}` });
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

function stampOf(status: BatchStatus): keyof BatchesTable | undefined {
  switch (status) {
    case 'in_progress':
      return 'in_progress_at';
    case 'finalizing':
      return 'finalizing_at';
    case 'completed':
      return 'completed_at';
    case 'failed':
      return 'failed_at';
    case 'expired':
      return 'expired_at';
    case 'cancelling':
      return 'cancelling_at';
    case 'cancelled':
      return 'cancelled_at';
    default:
      return undefined;
  }
}

export function toBatch(row: Selectable<BatchesTable>): BatchRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    endpoint: row.endpoint,
    inputFileId: row.input_file_id,
    completionWindow: row.completion_window,
    status: row.status as BatchStatus,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    errors: row.errors === null ? null : (JSON.parse(row.errors) as BatchError[]),
    total: toNumber(row.total),
    completed: toNumber(row.completed),
    failed: toNumber(row.failed),
    outputFileId: row.output_file_id,
    errorFileId: row.error_file_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    inProgressAt: row.in_progress_at,
    finalizingAt: row.finalizing_at,
    completedAt: row.completed_at,
    failedAt: row.failed_at,
    expiredAt: row.expired_at,
    cancellingAt: row.cancelling_at,
    cancelledAt: row.cancelled_at,
  };
}
