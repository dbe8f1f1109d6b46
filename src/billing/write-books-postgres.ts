import type pg from 'pg';
import { allocateCharges, type Allocation } from './allocate-charges.js';
import { rollUpRequests } from './roll-up-requests.js';
import { activeSettlements, assignTaken, chargedRows, notApplied, planSettlements, summarizeCharges, reservationTakes, uniqueRows, type BookOutcome, type BooksBatch, type SettlementPlan } from './plan-books.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { addRollups, changeFunds, deleteReservations, insertLedgerEntries, insertRequestRows, lockFunds, runOnClient, setRequestCosts, shrinkReservations, type PostgresRun } from '../store/repositories/books-postgres.js';
import { toRequestRow } from '../store/repositories/requests.js';

/**
 * A batch of settlements, request log rows and usage rollups in one PostgreSQL transaction,
 * each step one set-based statement (a handful of round trips per batch, whatever its size).
 * Accounts and keys are locked in id order, after the reservations, like every other writer,
 * so concurrent batches (other instances) cannot deadlock. On any error the transaction is
 * rolled back and the connection discarded when it is broken.
 */
export async function writeBooksPostgres(pool: pg.Pool, batch: BooksBatch): Promise<BookOutcome[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    try {
      const outcomes = await writeBooksWith(runOnClient(client), batch);
      await client.query('commit');
      return outcomes;
    } catch (error) {
      await client.query('rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } catch (error) {
    broken ??= isDatabaseUnavailable(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The batch's statements inside a transaction the caller opened and will end. */
export async function writeBooksWith(run: PostgresRun, batch: BooksBatch): Promise<BookOutcome[]> {
  const rows = uniqueRows(batch.items);
  const fresh = new Set(await insertRequestRows(run, rows.map(toRequestRow)));
  const active = activeSettlements(batch.items, fresh);
  const takes = reservationTakes(batch.items, active);
  const taken = assignTaken(batch.items, active, await deleteReservations(run, takes.deletes), await shrinkReservations(run, takes.shrinks));
  const plan = planSettlements(batch.items, active, taken);
  const allocations = await chargeUnderLock(run, plan, batch);
  const summary = summarizeCharges(plan, allocations, batch.items, batch);
  await insertLedgerEntries(run, summary.entries);
  const logged = chargedRows(batch.items, rows, fresh, allocations);
  await setRequestCosts(run, logged.filter((row) => row.cost !== row.original).map((row) => ({ id: row.record.id, cost: row.cost })));
  await addRollups(run, rollUpRequests(logged.map((row) => row.record)));
  return batch.items.map((item, index): BookOutcome => {
    const allocation = allocations.get(index);
    if (allocation) return { charged: allocation.charged, uncollected: allocation.uncollected, applied: true };
    return item.row && !item.settlement && fresh.has(item.row.id) ? { charged: 0n, uncollected: 0n, applied: true } : notApplied;
  });
}

/**
 * Locks the batch's accounts and keys in the global order, reading what each has free;
 * allocates every charge against that in memory (its own reservation first, then the free
 * funds); and applies the totals in one statement: two round trips whatever the batch.
 */
async function chargeUnderLock(run: PostgresRun, plan: SettlementPlan, batch: BooksBatch): Promise<Map<number, Allocation>> {
  const accounts = new Map<string, bigint>();
  const keys = new Map<string, bigint>();
  for (const row of await lockFunds(run, plan.accountIds, plan.keyIds)) {
    if (row.kind === 'account') accounts.set(row.id, row.free ?? 0n);
    // A key without a limit has no free amount: it is absent from the map.
    else if (row.free !== null) keys.set(row.id, row.free);
  }
  const indexes = [...plan.charges.keys()];
  const allocated = allocateCharges([...plan.charges.values()], accounts, keys);
  const allocations = new Map(indexes.map((index, position) => [index, allocated[position]]));
  const summary = summarizeCharges(plan, allocations, batch.items, { createdAt: batch.createdAt, ledgerId: () => '' });
  await changeFunds(run, summary.accounts, summary.keys);
  return allocations;
}
