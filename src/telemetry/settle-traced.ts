import type { Ledger, Reservation } from '../billing/ledger.js';
import type { RequestRecord } from '../billing/request-record.js';
import type { RequestTrace, TracedSettlement } from './request-trace.js';

/** `ledger.settle`, under a `switchyard.settle` span when the request is traced (no closure otherwise). */
export function settleTraced(
  ledger: Ledger,
  trace: RequestTrace | undefined,
  reservation: Reservation,
  settlement: TracedSettlement,
  record: RequestRecord | undefined,
): Promise<bigint> {
  if (trace === undefined) return ledger.settle(reservation, settlement.cost, record);
  return trace.settle(settlement, () => ledger.settle(reservation, settlement.cost, record));
}
