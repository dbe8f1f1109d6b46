import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';

export interface RedemptionBatch {
  id: string;
  /** Nano-USD each code credits. */
  amount: bigint;
  count: number;
  /** Codes of the batch redeemed so far. */
  redeemed: number;
  note: string | null;
  expiresAt: string | null;
  createdAt: string;
}

/** Batches newest first, after `cursor` (a batch id), each with its count of redeemed codes. */
export async function listBatches(db: Kysely<Database>, options: { limit: number; cursor?: string }): Promise<RedemptionBatch[]> {
  let query = db.selectFrom('redemption_batches').selectAll().orderBy('id', 'desc').limit(options.limit);
  if (options.cursor) query = query.where('id', '<', options.cursor);
  const rows = await query.execute();
  if (rows.length === 0) return [];
  // One grouped count over the page's batches, answered from (batch_id, redeemed_at).
  const counts = await db
    .selectFrom('redemption_codes')
    .select(['batch_id', (eb) => eb.fn.countAll<number | string | bigint>().as('redeemed')])
    .where(
      'batch_id',
      'in',
      rows.map((row) => row.id),
    )
    .where('redeemed_at', 'is not', null)
    .groupBy('batch_id')
    .execute();
  const redeemed = new Map(counts.map((row) => [row.batch_id, Number(row.redeemed)]));
  return rows.map((row) => ({
    id: row.id,
    amount: BigInt(row.amount),
    count: Number(row.count),
    redeemed: redeemed.get(row.id) ?? 0,
    note: row.note,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  }));
}
