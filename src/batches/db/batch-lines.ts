import type { Kysely, Selectable } from 'kysely';
import type { BatchLinesTable, Database } from '../../store/database.js';
import { toNumber } from '../../store/convert.js';

export type BatchLineStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'expired';

export interface BatchLineRecord {
  batchId: string;
  /** 1-based line number in the input file. */
  lineNo: number;
  customId: string;
  model: string;
  body: Record<string, unknown>;
  status: BatchLineStatus;
  requestId: string | null;
  statusCode: number | null;
  response: unknown;
  error: { code: string; message: string } | null;
  /** Where the line runs (`chooseLineExecutor`, at validation). */
  executor: string;
  /** The provider's batch the line was sent to (`pricing.batch_discount`); null when the engine runs it. */
  providerBatchId: string | null;
  /** The line's durable reservation while it is in a provider's batch. */
  reservationId: string | null;
}

export interface NewBatchLine {
  lineNo: number;
  customId: string;
  model: string;
  /** The line's body as JSON text. */
  body: string;
  /** Where it runs (`chooseLineExecutor`). */
  executor: string;
}

/** Inserts one chunk of a batch's lines, pending. */
export async function insertBatchLines(db: Kysely<Database>, batchId: string, lines: readonly NewBatchLine[]): Promise<void> {
  if (lines.length === 0) return;
  await db
    .insertInto('batch_lines')
    .values(lines.map((line) => ({ batch_id: batchId, line_no: line.lineNo, custom_id: line.customId, model: line.model, body: line.body, status: 'pending', executor: line.executor })))
    .execute();
}

/**
 * The next pending lines, in file order (the index `(batch_id, status, line_no)`); only those of
 * `executor` when given (`provider`: every executor but `engine`, so lines stored as `anthropic`
 * before the provider batch adapters are provider lines too), and none of `exceptModels`.
 */
export async function nextPendingLines(db: Kysely<Database>, batchId: string, limit: number, executor?: 'engine' | 'provider', exceptModels?: ReadonlySet<string>): Promise<BatchLineRecord[]> {
  let query = db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('status', '=', 'pending');
  if (executor !== undefined) query = query.where('executor', executor === 'engine' ? '=' : '<>', 'engine');
  // Models whose provider cannot take a line now (run-batch.ts's pacing): their lines wait.
  if (exceptModels !== undefined && exceptModels.size > 0) query = query.where('model', 'not in', [...exceptModels]);
  const rows = await query.orderBy('line_no').limit(limit).execute();
  return rows.map(toLine);
}

/**
 * Lines left `running` by a run that did not end them (its process died): at most the batch's
 * pacing bound. `engineOnly`: not the lines waiting in a provider's batch (those are the poll's).
 */
export async function runningLines(db: Kysely<Database>, batchId: string, limit: number, engineOnly = false): Promise<BatchLineRecord[]> {
  let query = db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('status', '=', 'running');
  if (engineOnly) query = query.where('provider_batch_id', 'is', null);
  const rows = await query.orderBy('line_no').limit(limit).execute();
  return rows.map(toLine);
}

/** Marks a pending line running in a provider's batch, with the request id its row will have and its reservation; false when it was no longer pending. */
export async function sendLineToProvider(db: Kysely<Database>, batchId: string, lineNo: number, sent: { requestId: string; providerBatchId: string; reservationId: string | null }): Promise<boolean> {
  const result = await db
    .updateTable('batch_lines')
    .set({ status: 'running', request_id: sent.requestId, provider_batch_id: sent.providerBatchId, reservation_id: sent.reservationId })
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A pending line whose provider route is gone (the config changed) runs on the engine instead. */
export async function moveLineToEngine(db: Kysely<Database>, batchId: string, lineNo: number): Promise<void> {
  await db.updateTable('batch_lines').set({ executor: 'engine' }).where('batch_id', '=', batchId).where('line_no', '=', lineNo).where('status', '=', 'pending').execute();
}

/** The provider batches this batch's running lines wait in. */
export async function providerBatchIdsOf(db: Kysely<Database>, batchId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('batch_lines')
    .select('provider_batch_id')
    .distinct()
    .where('batch_id', '=', batchId)
    .where('status', '=', 'running')
    .where('provider_batch_id', 'is not', null)
    .execute();
  return rows.map((row) => row.provider_batch_id!);
}

/** The lines still running in one provider batch. */
export async function providerLinesOf(db: Kysely<Database>, batchId: string, providerBatchId: string): Promise<BatchLineRecord[]> {
  const rows = await db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('status', '=', 'running').where('provider_batch_id', '=', providerBatchId).orderBy('line_no').execute();
  return rows.map(toLine);
}

/** Marks a pending line running under the request id its run will log; false when it was no longer pending. */
export async function startLine(db: Kysely<Database>, batchId: string, lineNo: number, requestId: string): Promise<boolean> {
  const result = await db
    .updateTable('batch_lines')
    .set({ status: 'running', request_id: requestId })
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Puts a line back to pending (its run was stopped before an answer), keeping or dropping its request id. */
export async function returnLine(db: Kysely<Database>, batchId: string, lineNo: number, requestId: string | null): Promise<void> {
  await db.updateTable('batch_lines').set({ status: 'pending', request_id: requestId }).where('batch_id', '=', batchId).where('line_no', '=', lineNo).execute();
}

/** Ends a running line with its answer or error; false when it was not running (ended already). */
export async function endLine(
  db: Kysely<Database>,
  batchId: string,
  lineNo: number,
  end: { status: 'completed' | 'failed'; statusCode: number; response: unknown; error: { code: string; message: string } | null },
): Promise<boolean> {
  const result = await db
    .updateTable('batch_lines')
    .set({
      status: end.status,
      status_code: end.statusCode,
      response: end.response === null || end.response === undefined ? null : JSON.stringify(end.response),
      error: end.error === null ? null : JSON.stringify(end.error),
    })
    .where('batch_id', '=', batchId)
    .where('line_no', '=', lineNo)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Ends up to `limit` pending lines as `cancelled` or `expired` (nothing ran, nothing is charged);
 * answers how many. Called in chunks, so a large batch does not hold SQLite's thread.
 */
export async function closePendingLines(db: Kysely<Database>, batchId: string, status: 'cancelled' | 'expired', limit: number): Promise<number> {
  const lines = await db.selectFrom('batch_lines').select('line_no').where('batch_id', '=', batchId).where('status', '=', 'pending').orderBy('line_no').limit(limit).execute();
  if (lines.length === 0) return 0;
  const result = await db
    .updateTable('batch_lines')
    .set({ status })
    .where('batch_id', '=', batchId)
    .where('status', '=', 'pending')
    .where(
      'line_no',
      'in',
      lines.map((line) => line.line_no),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Lines after `afterLineNo`, in file order: one chunk of the output and error files. */
export async function readLinesAfter(db: Kysely<Database>, batchId: string, afterLineNo: number, limit: number): Promise<BatchLineRecord[]> {
  const rows = await db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).where('line_no', '>', afterLineNo).orderBy('line_no').limit(limit).execute();
  return rows.map(toLine);
}

function toLine(row: Selectable<BatchLinesTable>): BatchLineRecord {
  return {
    batchId: row.batch_id,
    lineNo: toNumber(row.line_no),
    customId: row.custom_id,
    model: row.model,
    body: JSON.parse(row.body) as Record<string, unknown>,
    status: row.status as BatchLineStatus,
    requestId: row.request_id,
    statusCode: row.status_code === null ? null : toNumber(row.status_code),
    response: row.response === null ? null : (JSON.parse(row.response) as unknown),
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
    executor: row.executor,
    providerBatchId: row.provider_batch_id,
    reservationId: row.reservation_id,
  };
}
