import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

/** A money movement's kind as the ledger stores it; `credit` is an operator's grant. */
export type MovementKind = 'credit' | 'top_up' | 'auto_top_up' | 'refund' | 'dispute' | 'dispute_won' | 'redemption' | 'signup_bonus';

export interface Movement {
  /** The new ledger entry's id (`createId('led')`). */
  id: string;
  accountId: string;
  kind: MovementKind;
  /** Nano-USD; negative for what leaves the account (a refund, a dispute). */
  amount: bigint;
  /**
   * What makes it happen once: the external event's own id (`stripe:cs_…`, `stripe:re_…`,
   * `redemption:<code hash>`, `signup_bonus:email:<address>`). Null for movements with no
   * outside source that could repeat (an operator's grant).
   */
  reference: string | null;
  note: string | null;
  receiptUrl?: string | null;
  createdAt: string;
}

/**
 * Posts a movement to the ledger and the account's credits, once per `reference`. Call it inside
 * the transaction that should commit with it. The reference row goes first: a second posting of
 * the same reference, concurrent or later, on any instance, conflicts on its primary key and
 * posts nothing (on PostgreSQL the second insert waits for the first transaction, then does
 * nothing). Answers whether this call posted it.
 */
export async function postMovement(db: Kysely<Database>, movement: Movement): Promise<boolean> {
  if (movement.reference !== null) {
    const inserted = await db
      .insertInto('ledger_references')
      .values({ reference: movement.reference, ledger_entry_id: movement.id, account_id: movement.accountId, created_at: movement.createdAt })
      .onConflict((conflict) => conflict.column('reference').doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 0n) return false;
  }
  await db
    .updateTable('accounts')
    .set((eb) => ({ total_credits: eb('total_credits', '+', movement.amount) }))
    .where('id', '=', movement.accountId)
    .execute();
  await db
    .insertInto('ledger_entries')
    .values({
      id: movement.id,
      account_id: movement.accountId,
      key_id: null,
      kind: movement.kind,
      amount: movement.amount,
      request_id: null,
      note: movement.note,
      receipt_url: movement.receiptUrl ?? null,
      created_at: movement.createdAt,
    })
    .execute();
  return true;
}

/** The ledger entry a reference posted, if it has been posted. */
export async function findPostedReference(db: Kysely<Database>, reference: string): Promise<{ ledgerEntryId: string; accountId: string } | undefined> {
  const row = await db.selectFrom('ledger_references').select(['ledger_entry_id', 'account_id']).where('reference', '=', reference).executeTakeFirst();
  return row ? { ledgerEntryId: row.ledger_entry_id, accountId: row.account_id } : undefined;
}
