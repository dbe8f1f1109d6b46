import type { MovementRecord } from '../../billing/db/list-movements.js';
import { nanoToUsd } from '../../core/money.js';

/** The ledger keeps an operator's grant as `credit`; the contract shows it as `grant`. */
const shownKind = (kind: string): string => (kind === 'credit' ? 'grant' : kind);

/** A money movement as `GET /v1/credits/transactions` and the operator's per-account list show it (contract §7). */
export function encodeMovement(row: MovementRecord) {
  return { id: row.id, created_at: row.createdAt, kind: shownKind(row.kind), amount: nanoToUsd(row.amount), reference: row.reference, receipt_url: row.receiptUrl };
}
