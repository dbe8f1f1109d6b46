import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

export interface MovementRecord {
  id: string;
  createdAt: string;
  kind: string;
  amount: bigint;
  reference: string | null;
  receiptUrl: string | null;
}

/**
 * An account's money movements (every ledger entry but charges and uncollected amounts), newest
 * first; `cursor` is the last id of the previous page. The conditions on `kind` are the partial
 * index's own (`ledger_entries_movements_idx`), so PostgreSQL reads the index and no charge. The
 * reference comes from `ledger_references`, which names the entry it posted.
 */
export async function listMovements(db: Kysely<Database>, accountId: string, page: { limit: number; cursor?: string }): Promise<MovementRecord[]> {
  let query = db
    .selectFrom('ledger_entries as e')
    .leftJoin('ledger_references as r', 'r.ledger_entry_id', 'e.id')
    .select(['e.id', 'e.created_at', 'e.kind', 'e.amount', 'e.receipt_url', 'r.reference'])
    .where('e.account_id', '=', accountId)
    .where('e.kind', '<>', 'charge')
    .where('e.kind', '<>', 'uncollected')
    .orderBy('e.id', 'desc')
    .limit(page.limit);
  if (page.cursor !== undefined) query = query.where('e.id', '<', page.cursor);
  const rows = await query.execute();
  return rows.map((row) => ({ id: row.id, createdAt: row.created_at, kind: row.kind, amount: BigInt(row.amount), reference: row.reference, receiptUrl: row.receipt_url }));
}
