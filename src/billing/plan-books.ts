import type { RequestRecord } from './request-record.js';
import type { CoveredSettlement, FundsChange, LedgerEntryRow, TakenRow } from './db/book-rows.js';
import { mapPacked } from '../core/map-packed.js';
import { rollUpRequestsByRow } from './roll-up-requests.js';
import type { UsageRollupDelta } from './db/usage-rollups.js';

/** One settlement to apply in a batch. */
export interface SettlementEntry {
  /** null: nothing was reserved (the request bypassed the reservation); charge from the funds. */
  reservationId: string | null;
  /**
   * Set when the request reserved in memory within this instance's lease (see docs/leases.md):
   * `reservationId` names the lease row, which shrinks by this amount instead of being deleted.
   */
  leaseHeld?: bigint;
  accountId: string;
  keyId: string | null;
  requestId: string;
  /** The actual cost; charged in full as far as the funds allow. */
  cost: bigint;
}

/**
 * One unit of a group-committed batch: a settlement with its request log row, a row alone (a
 * refused request), or a settlement alone (a media charge whose row follows separately).
 */
export interface BookItem {
  row?: RequestRecord;
  settlement?: SettlementEntry;
}

export interface BookOutcome {
  charged: bigint;
  uncollected: bigint;
  /**
   * False when the item changed nothing: its row was already written (a batch retried after a
   * lost commit answer), or its settlement had no row and found its reservation already ended.
   */
  applied: boolean;
}

export interface BooksBatch {
  items: readonly BookItem[];
  createdAt: string;
  /** A fresh ledger entry id. */
  ledgerId(): string;
}

export const notApplied: BookOutcome = { charged: 0n, uncollected: 0n, applied: false };

/** Rows of a batch keyed by request id, the first one of each id winning. */
export function uniqueRows(items: readonly BookItem[]): RequestRecord[] {
  const rows = new Map<string, RequestRecord>();
  for (const item of items) if (item.row && !rows.has(item.row.id)) rows.set(item.row.id, item.row);
  return [...rows.values()];
}

/**
 * What the batch must take from the reservations table for its active settlements: the rows of
 * per-request reservations to delete, and for each lease the sum its requests held, to take out
 * of the lease row in one change.
 */
export function reservationTakes(items: readonly BookItem[], active: readonly number[]): { deletes: string[]; shrinks: Array<{ id: string; amount: bigint }> } {
  const deletes: string[] = [];
  const shrinks = new Map<string, bigint>();
  for (const index of active) {
    const settlement = items[index].settlement!;
    if (settlement.reservationId === null) continue;
    if (settlement.leaseHeld === undefined) deletes.push(settlement.reservationId);
    else shrinks.set(settlement.reservationId, (shrinks.get(settlement.reservationId) ?? 0n) + settlement.leaseHeld);
  }
  return { deletes, shrinks: mapPacked([...shrinks], ([id, amount]) => ({ id, amount })) };
}

/**
 * Which active settlement found its reservation, from the rows the batch deleted and the lease
 * rows it shrank. A lease row not shrunk (gone: swept while this instance looked dead) leaves
 * all of its settlements without a reservation, as a swept reservation does.
 */
export function assignTaken(items: readonly BookItem[], active: readonly number[], deleted: readonly TakenRow[], shrunk: readonly TakenRow[]): Map<number, TakenReservation> {
  const rows = new Map(deleted.map((row) => [row.id, row]));
  const leases = new Map(shrunk.map((row) => [row.id, row]));
  const taken = new Map<number, TakenReservation>();
  for (const index of active) {
    const settlement = items[index].settlement!;
    if (settlement.reservationId === null) continue;
    const row = settlement.leaseHeld === undefined ? rows.get(settlement.reservationId) : leases.get(settlement.reservationId);
    if (row) taken.set(index, { accountId: row.account_id, keyId: row.key_id, amount: settlement.leaseHeld ?? row.amount });
  }
  return taken;
}

/** A reservation taken by the batch: a row deleted, or an amount out of a lease row. */
export interface TakenReservation {
  accountId: string;
  keyId: string | null;
  amount: bigint;
}

export type { LedgerEntryRow };
export type FundsDelta = FundsChange;

/** The settlements of a batch that are to be applied: those whose row is new (or that have none). */
export function activeSettlements(items: readonly BookItem[], freshRowIds: ReadonlySet<string>): number[] {
  const claimed = new Set<string>();
  const active: number[] = [];
  items.forEach((item, index) => {
    if (!item.settlement) return;
    if (item.row) {
      // A row already in the log means this settlement was committed before: never twice.
      if (!freshRowIds.has(item.row.id) || claimed.has(item.row.id)) return;
      claimed.add(item.row.id);
    }
    active.push(index);
  });
  return active;
}

export interface SettlementPlan {
  /** Per item index: the charge to allocate, or undefined when the item is not applied. */
  charges: Map<number, { accountId: string; keyId: string | null; released: bigint; cost: bigint }>;
  accountIds: string[];
  keyIds: string[];
}

/**
 * Pairs each active settlement with its reservation as taken. A settlement whose reservation is
 * gone (swept while its instance looked dead) still charges its actual cost when its row is new
 * (fencing: never zero); one without a row is then taken as already ended.
 */
export function planSettlements(items: readonly BookItem[], active: readonly number[], taken: ReadonlyMap<number, TakenReservation>): SettlementPlan {
  const charges: SettlementPlan['charges'] = new Map();
  const accounts = new Set<string>();
  const keys = new Set<string>();
  for (const index of active) {
    const { settlement, row } = items[index];
    const reservation = taken.get(index);
    if (!reservation && !row) continue;
    const charge = reservation
      ? { accountId: reservation.accountId, keyId: reservation.keyId, released: reservation.amount, cost: settlement!.cost }
      : { accountId: settlement!.accountId, keyId: settlement!.keyId, released: 0n, cost: settlement!.cost };
    charges.set(index, charge);
    accounts.add(charge.accountId);
    if (charge.keyId !== null) keys.add(charge.keyId);
  }
  // Sorted: every writer locks rows in the same order, so concurrent batches cannot deadlock.
  return { charges, accountIds: [...accounts].sort(), keyIds: [...keys].sort() };
}

/** Aggregated balance changes and ledger entries of the allocated charges. */
export function summarizeCharges(
  plan: SettlementPlan,
  allocations: ReadonlyMap<number, { charged: bigint; uncollected: bigint; shortOf: string | null }>,
  items: readonly BookItem[],
  batch: Pick<BooksBatch, 'createdAt' | 'ledgerId'>,
): { accounts: FundsDelta[]; keys: FundsDelta[]; entries: LedgerEntryRow[] } {
  const accounts = new Map<string, FundsDelta>();
  const keys = new Map<string, FundsDelta>();
  const entries: LedgerEntryRow[] = [];
  const { createdAt } = batch;
  for (const [index, charge] of plan.charges) {
    const { charged, uncollected, shortOf } = allocations.get(index)!;
    const { accountId, keyId, released } = charge;
    const account = accounts.get(accountId);
    if (account) {
      account.released += released;
      account.charged += charged;
    } else accounts.set(accountId, { id: accountId, released, charged });
    if (keyId !== null) {
      const key = keys.get(keyId);
      if (key) {
        key.released += released;
        key.charged += charged;
      } else keys.set(keyId, { id: keyId, released, charged });
    }
    const requestId = items[index].settlement!.requestId;
    // Built whole, not spread from a shared part: one object per entry, one shape.
    if (charged > 0n) entries.push({ id: batch.ledgerId(), account_id: accountId, key_id: keyId, kind: 'charge', amount: charged, request_id: requestId, note: null, created_at: createdAt });
    if (uncollected > 0n) entries.push({ id: batch.ledgerId(), account_id: accountId, key_id: keyId, kind: 'uncollected', amount: uncollected, request_id: requestId, note: `short of ${shortOf}`, created_at: createdAt });
  }
  const byId = (left: FundsDelta, right: FundsDelta) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
  return { accounts: [...accounts.values()].sort(byId), keys: [...keys.values()].sort(byId), entries };
}

/**
 * The new rows of a batch as they are logged: a settled row's cost is what was charged (the
 * actual cost, less any uncollected part), so the log, the rollups and the ledger agree.
 */
export function chargedRows(
  items: readonly BookItem[],
  rows: readonly RequestRecord[],
  fresh: ReadonlySet<string>,
  allocations: ReadonlyMap<number, { charged: bigint }>,
): Array<{ record: RequestRecord; original: bigint; cost: bigint }> {
  const settledCost = new Map<string, bigint>();
  for (const [index, allocation] of allocations) {
    const row = items[index].row;
    if (row) settledCost.set(row.id, allocation.charged);
  }
  const logged: Array<{ record: RequestRecord; original: bigint; cost: bigint }> = [];
  for (const row of rows) {
    if (!fresh.has(row.id)) continue;
    const cost = settledCost.get(row.id) ?? row.cost;
    logged.push({ record: cost === row.cost ? row : { ...row, cost }, original: row.cost, cost });
  }
  return logged;
}

/**
 * A batch that can be applied in one statement (`coveredBatch`): every settlement is the first
 * of its own new row and costs no more than its own lease hold, so it is charged in full when,
 * under lock, each lease row still holds what its requests took out of it and no account or
 * limited key has less than nothing free (credits − usage − reserved, this batch's holds
 * included). That is `allocateCharges` with every charge covered by its own release; the
 * statement checks those conditions before it writes anything and writes nothing when one fails,
 * and the batch then takes the general path.
 */
export interface CoveredBatch {
  rows: RequestRecord[];
  /** One per settlement, in item order. */
  settlements: CoveredSettlement[];
  /** The usage rollups if every row is new, sorted as `rollUpRequests` sorts them. */
  rollups: UsageRollupDelta[];
  /** Per row (in `rows` order): its rollup's index, or null for a row outside the statistics. */
  rollupOf: Array<number | null>;
}

/** The covered form of a batch, or undefined when it needs the general path (see `CoveredBatch`). */
export function coveredBatch(batch: Pick<BooksBatch, 'items' | 'ledgerId'>): CoveredBatch | undefined {
  if (batch.items.length === 0) return undefined;
  const rows: RequestRecord[] = [];
  const seen = new Set<string>();
  const settlements: CoveredBatch['settlements'] = [];
  for (const { row, settlement } of batch.items) {
    if (row) {
      if (seen.has(row.id)) return undefined;
      seen.add(row.id);
      rows.push(row);
    }
    if (!settlement) continue;
    const { leaseHeld, reservationId, cost } = settlement;
    if (!row || row.id !== settlement.requestId || leaseHeld === undefined || reservationId === null) return undefined;
    if (cost < 0n || cost > leaseHeld || row.cost !== cost) return undefined;
    settlements.push({ rowId: row.id, leaseId: reservationId, held: leaseHeld, accountId: settlement.accountId, keyId: settlement.keyId, cost, entryId: null });
  }
  // Ids drawn only once the batch is known to take this path, in item order as the general path draws them.
  for (const settlement of settlements) if (settlement.cost > 0n) settlement.entryId = batch.ledgerId();
  return { rows, settlements, ...rollUpRequestsByRow(rows) };
}
