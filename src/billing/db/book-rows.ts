/** Rows the books writers of both dialects read and write. */

/** A reservation row as a settlement batch took it (deleted, or an amount out of a lease row). */
export interface TakenRow {
  id: string;
  account_id: string;
  key_id: string | null;
  amount: bigint;
}

/** A settlement of a covered batch as its one statement applies it (`applyCoveredBooks`). */
export interface CoveredSettlement {
  rowId: string;
  leaseId: string;
  held: bigint;
  accountId: string;
  keyId: string | null;
  cost: bigint;
  /** The charge entry's id; null when the cost is 0 (no entry). */
  entryId: string | null;
}

export interface FundsChange {
  id: string;
  released: bigint;
  charged: bigint;
}

export interface LedgerEntryRow {
  id: string;
  account_id: string;
  key_id: string | null;
  kind: 'charge' | 'uncollected';
  amount: bigint;
  request_id: string;
  note: string | null;
  created_at: string;
}
