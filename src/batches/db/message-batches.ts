import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { findBatch, toBatch, type BatchRecord } from './batches.js';
import type { BatchLineStatus } from './batch-lines.js';

/** The prefix of a Message Batch's id (Anthropic's `msgbatch_…`), which keeps its list apart from OpenAI's batches. */
export const messageBatchPrefix = 'msgbatch';

/** The account's Message Batch; another account's id, or an OpenAI-shaped batch's, finds nothing. */
export async function findMessageBatch(db: Kysely<Database>, accountId: string, id: string): Promise<BatchRecord | undefined> {
  if (!id.startsWith(`${messageBatchPrefix}_`)) return undefined;
  return findBatch(db, accountId, id);
}

/**
 * One page of the account's Message Batches, as Anthropic pages them: newest first; `afterId`
 * gives the page of older batches just after that one, `beforeId` the page of newer ones just
 * before it (https://docs.anthropic.com/en/api/listing-message-batches). Reads `limit + 1` rows so
 * the caller can tell `has_more`; the page comes back newest first either way, whole rows in one
 * statement (a page of 100 is one query, not one per batch).
 */
export async function listMessageBatches(
  db: Kysely<Database>,
  accountId: string,
  options: { limit: number; beforeId?: string; afterId?: string },
): Promise<{ rows: BatchRecord[]; hasMore: boolean }> {
  // The index `(account_id, kind, id)`: OpenAI-shaped batches are never read.
  let query = db.selectFrom('batches').selectAll().where('account_id', '=', accountId).where('kind', '=', 'message_batch');
  if (options.beforeId !== undefined) {
    const rows = await query.where('id', '>', options.beforeId).orderBy('id', 'asc').limit(options.limit + 1).execute();
    return { rows: rows.slice(0, options.limit).map(toBatch).reverse(), hasMore: rows.length > options.limit };
  }
  if (options.afterId !== undefined) query = query.where('id', '<', options.afterId);
  const rows = await query.orderBy('id', 'desc').limit(options.limit + 1).execute();
  return { rows: rows.slice(0, options.limit).map(toBatch), hasMore: rows.length > options.limit };
}

/** How many of a batch's lines stand in each status (the index `(batch_id, status, line_no)` serves it). */
export async function countLinesByStatus(db: Kysely<Database>, batchId: string): Promise<Partial<Record<BatchLineStatus, number>>> {
  const rows = await db.selectFrom('batch_lines').select(['status', db.fn.countAll().as('count')]).where('batch_id', '=', batchId).groupBy('status').execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}
