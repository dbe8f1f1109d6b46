import type SqliteDatabase from 'better-sqlite3';
import { allocateCharges } from './allocate-charges.js';
import { rollUpRequests } from './roll-up-requests.js';
import { activeSettlements, assignTaken, chargedRows, notApplied, planSettlements, reservationTakes, summarizeCharges, uniqueRows, type BookOutcome, type BooksBatch } from './plan-books.js';
import { prepareBooksStatements, type BooksStatements } from './db/books-sqlite.js';
import type { TakenRow } from './db/book-rows.js';
import { toRequestRow } from './db/requests.js';
import { mapPacked } from '../core/map-packed.js';
import { summarizeUsage } from './db/summarize-usage.js';

/**
 * A batch of settlements, request log rows and usage rollups in one SQLite transaction, with
 * prepared statements on the synchronous driver: nothing else can run in between, and no query
 * is built per call. Throws (and changes nothing) when any statement fails.
 */
export function writeBooksSqlite(database: SqliteDatabase.Database, batch: BooksBatch): BookOutcome[] {
  let write = writers.get(database);
  if (!write) {
    const statements = prepareBooksStatements(database);
    write = database.transaction((one: BooksBatch) => writeBooksWithStatements(statements, one));
    writers.set(database, write);
  }
  return write.immediate(batch);
}

const writers = new WeakMap<SqliteDatabase.Database, SqliteDatabase.Transaction<(batch: BooksBatch) => BookOutcome[]>>();

/** The batch's statements inside a transaction the caller opened and will end. */
export function writeBooksWithStatements(statements: BooksStatements, batch: BooksBatch): BookOutcome[] {
  const rows = uniqueRows(batch.items);
  const fresh = new Set<string>();
  for (const row of rows) if (statements.insertRequestRow(toRequestRow(row))) fresh.add(row.id);
  const active = activeSettlements(batch.items, fresh);
  const takes = reservationTakes(batch.items, active);
  const present = (row: TakenRow | undefined): row is TakenRow => row !== undefined;
  const deleted = takes.deletes.map((id) => statements.deleteReservation(id)).filter(present);
  const shrunk = takes.shrinks.map((take) => statements.shrinkReservation(take.id, take.amount)).filter(present);
  const plan = planSettlements(batch.items, active, assignTaken(batch.items, active, deleted, shrunk));
  const accounts = new Map<string, bigint>();
  for (const id of plan.accountIds) accounts.set(id, statements.accountFree(id) ?? 0n);
  const keys = new Map<string, bigint>();
  for (const id of plan.keyIds) {
    const free = statements.keyFree(id);
    if (free !== undefined) keys.set(id, free);
  }
  const indexes = [...plan.charges.keys()];
  const allocated = allocateCharges([...plan.charges.values()], accounts, keys);
  const allocations = new Map(indexes.map((index, position) => [index, allocated[position]]));
  const summary = summarizeCharges(plan, allocations, batch.items, batch);
  for (const change of summary.accounts) statements.changeAccount(change);
  for (const change of summary.keys) statements.changeKey(change);
  for (const entry of summary.entries) statements.insertLedgerEntry(entry);
  const logged = chargedRows(batch.items, rows, fresh, allocations);
  for (const row of logged) if (row.cost !== row.original) statements.setRequestCost(row.record.id, row.record.cost);
  const rollups = rollUpRequests(mapPacked(logged, (row) => row.record));
  for (const delta of rollups) statements.addRollup(delta);
  for (const delta of summarizeUsage(rollups)) statements.addSummary(delta);
  return mapPacked(batch.items, (item, index): BookOutcome => {
    const allocation = allocations.get(index);
    if (allocation) return { charged: allocation.charged, uncollected: allocation.uncollected, applied: true };
    return item.row && !item.settlement && fresh.has(item.row.id) ? { charged: 0n, uncollected: 0n, applied: true } : notApplied;
  });
}
