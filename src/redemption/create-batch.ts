import type { AppContext } from '../app-context.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { yieldToEventLoop } from '../store/run-in-batches.js';
import type { RedemptionBatch } from './batches.js';
import { generateCode, hashCode, normalizeCode } from './code-text.js';

export const maxBatchCount = 10_000;

/**
 * Rows per insert. On SQLite every statement runs on the event loop: 500 codes made, hashed and
 * inserted take 5-10 ms (measured on the 2-core test machine), and a yield between inserts lets requests run, so 10,000 codes never hold
 * the loop for more than one insert. 500 × 2 parameters also stays far below either database's
 * limit on parameters.
 */
const rowsPerInsert = 500;

export interface NewBatch {
  amount: bigint;
  count: number;
  expiresAt: string | null;
  note: string | null;
}

/**
 * Makes a batch of codes and answers them in clear, the only time they exist as text: the
 * database keeps their hashes. The inserts are separate statements, not one transaction, because
 * a transaction on SQLite's one connection would take in every other request's statements while
 * it yields; if an insert fails, what was written of the batch is deleted, and the codes (never
 * shown) are lost with it.
 */
export async function createBatch(context: Pick<AppContext, 'store' | 'clock' | 'createId'>, batch: NewBatch): Promise<{ batch: RedemptionBatch; codes: string[] }> {
  if (!Number.isInteger(batch.count) || batch.count < 1 || batch.count > maxBatchCount) throw invalidRequest(`'count' must be an integer from 1 to ${maxBatchCount}`, 'count');
  if (batch.amount <= 0n) throw invalidRequest("'amount' must be greater than 0", 'amount');
  const now = context.clock.now();
  if (batch.expiresAt !== null && Date.parse(batch.expiresAt) <= now.getTime()) throw invalidRequest("'expires_at' must be in the future", 'expires_at');
  const { db } = context.store;
  const id = context.createId('rdb');
  const createdAt = now.toISOString();
  await db.insertInto('redemption_batches').values({ id, amount: batch.amount, count: batch.count, note: batch.note, expires_at: batch.expiresAt, created_at: createdAt }).execute();
  const codes: string[] = [];
  try {
    while (codes.length < batch.count) {
      const chunk: string[] = [];
      while (chunk.length < rowsPerInsert && codes.length + chunk.length < batch.count) chunk.push(generateCode());
      await db
        .insertInto('redemption_codes')
        .values(chunk.map((code) => ({ hash: hashCode(normalizeCode(code)!), batch_id: id, redeemed_at: null, redeemed_account_id: null })))
        .execute();
      codes.push(...chunk);
      await yieldToEventLoop();
    }
  } catch (error) {
    await db.deleteFrom('redemption_codes').where('batch_id', '=', id).execute();
    await db.deleteFrom('redemption_batches').where('id', '=', id).execute();
    throw error;
  }
  return { batch: { id, amount: batch.amount, count: batch.count, redeemed: 0, note: batch.note, expiresAt: batch.expiresAt, createdAt }, codes };
}
