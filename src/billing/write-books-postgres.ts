import type { Writable } from 'node:stream';
import type pg from 'pg';
import { allocateCharges, type Allocation } from './allocate-charges.js';
import { rollUpRequests } from './roll-up-requests.js';
import { activeSettlements, assignTaken, chargedRows, coveredBatch, notApplied, planSettlements, summarizeCharges, uniqueRows, type BookOutcome, type BooksBatch, type CoveredBatch } from './plan-books.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { applyBooks, applyCoveredBooks, runOnClient, takeBooks, type CandidateSettlement, type PostgresRun } from './db/books-postgres.js';
import { toRequestJsonRow } from './db/requests.js';
import { mapPacked } from '../core/map-packed.js';
import { summarizeUsage, summarizeUsageByRollup } from './db/summarize-usage.js';

/**
 * A batch of settlements, request log rows and usage rollups in one PostgreSQL transaction.
 *
 * A batch covered by its lease holds (`coveredBatch`: the common case, every settlement within
 * what its request held) is one statement, sent with `begin` and `commit` in one write: one round
 * trip. Should its check under lock fail, it writes nothing, and the batch takes the general path
 * in a transaction of its own.
 *
 * The general path is two statements, whatever the batch's size: the first writes the rows,
 * takes the reservations of the settlements to apply and locks their accounts and keys in the
 * global order; the charges are allocated here, under that lock; the second applies them. The
 * connection pipelines while the batch holds it: `begin` goes out with the first statement and
 * `commit` with the second, so the batch waits for two answers, not four. What is sent in one
 * tick leaves in one socket write: two writes a batch instead of four, each a system call whose
 * cost at low load is paid per request.
 *
 * A statement that fails aborts the transaction, and a `commit` behind it then only ends it
 * (PostgreSQL answers ROLLBACK). On any error the transaction is rolled back and the connection
 * discarded when it is broken.
 */
export async function writeBooksPostgres(pool: pg.Pool, batch: BooksBatch): Promise<BookOutcome[]> {
  const client = await pool.connect();
  const connection: { broken?: Error } = {};
  const mode = client as unknown as { pipeline: boolean };
  const pipelined = mode.pipeline;
  // The client is this batch's alone until released, and nothing is queued on it: a safe point to switch.
  mode.pipeline = true;
  try {
    const covered = coveredBatch(batch);
    if (covered) {
      const outcomes = await inBooksTransaction(client, connection, (run, commit) => writeCoveredBooks(run, batch, covered, commit));
      if (outcomes) return outcomes;
    }
    return await inBooksTransaction(client, connection, (run, commit) => writeBooksWith(run, batch, commit));
  } catch (error) {
    connection.broken ??= isDatabaseUnavailable(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    mode.pipeline = pipelined;
    client.release(connection.broken);
  }
}

/**
 * One transaction on the batch's pipelined connection: `begin` goes out with the body's first
 * statement, and `commit` (asked for by the body) with its last.
 */
async function inBooksTransaction<T>(
  client: pg.PoolClient,
  connection: { broken?: Error },
  body: (run: PostgresRun, commit: () => Promise<unknown>) => Promise<T>,
): Promise<T> {
  const together = coalesceWrites(client);
  // Sent before `begin` is answered; should `begin` fail, nothing more is sent (answers come
  // in order: its failure is known before the first statement's answer is read).
  let failed: unknown;
  together();
  const begun = client.query(beginBooks).catch((error: unknown) => {
    failed = error;
    throw error;
  });
  const send = runOnClient(client);
  // After a failed `begin` nothing more goes out; otherwise each message joins this tick's write.
  const sendUnlessFailed = <R>(sendNow: () => Promise<R>): Promise<R> => {
    if (failed !== undefined) return Promise.reject(failed);
    together();
    return sendNow();
  };
  const run: PostgresRun = (query) => sendUnlessFailed(() => send(query));
  const written = body(run, () => sendUnlessFailed(() => client.query('commit')));
  try {
    const [, result] = await Promise.all([begun, written]);
    return result;
  } catch (error) {
    // Nothing of the batch may be sent after the rollback: let the rest settle first. The
    // rollback is answered after everything sent before it; then the connection is idle.
    await Promise.allSettled([begun, written]);
    await client.query('rollback').catch((rollbackError: Error) => {
      connection.broken = rollbackError;
    });
    throw error;
  }
}

/**
 * A covered batch (`coveredBatch`) in one statement, sent with `commit` right behind it: one round
 * trip. Undefined when the statement's check failed and it wrote nothing (a lease row no longer
 * holds its requests' sum, or an account or key has less than nothing free): the caller then
 * writes the batch by the general path, in a transaction of its own.
 */
async function writeCoveredBooks(run: PostgresRun, batch: BooksBatch, covered: CoveredBatch, commit: () => Promise<unknown>): Promise<BookOutcome[] | undefined> {
  const { summaries, summaryOf } = summarizeUsageByRollup(covered.rollups);
  // applyCoveredBooks sends its statement before it first awaits: the commit goes out behind it.
  const applied = applyCoveredBooks(run, {
    rows: mapPacked(covered.rows, toRequestJsonRow),
    settlements: covered.settlements,
    rollups: covered.rollups,
    summaries,
    summaryOf,
    rollupOf: covered.rollupOf,
    rowUsage: covered.rows,
    createdAt: batch.createdAt,
  });
  const [{ ok, fresh }] = await Promise.all([applied, commit()]);
  if (!ok) return undefined;
  const written = new Set(fresh);
  return mapPacked(batch.items, (item): BookOutcome => {
    if (!item.row || !written.has(item.row.id)) return notApplied;
    return item.settlement ? { charged: item.settlement.cost, uncollected: 0n, applied: true } : { charged: 0n, uncollected: 0n, applied: true };
  });
}

/**
 * Opens a batch's transaction, and within it only (`set local`) has PostgreSQL run the writer's
 * prepared statements by their generic plan. Left to choose (`auto`), a connection plans the
 * statement anew at every execution whenever its first five batches were small: a custom plan
 * then looks cheaper than the generic one. The statement that applies the books took ~0.27 ms to
 * plan, about as long as it took to run, on every batch of the connections that chose so (from
 * 1 % to 73 % of the executions in three runs of the benchmark; `bench/README.md`). Its generic
 * plan is the same index lookups by primary key whatever the arrays hold. Session-wide the
 * setting would also reach the pool's unnamed statements (Kysely's), whose custom plans can use
 * the partial indexes.
 */
const beginBooks = 'begin; set local plan_cache_mode = force_generic_plan';

/**
 * Holds the connection's socket corked until the end of the current tick, so that every message
 * sent before then goes out in one write (as Node's HTTP responses do). Nested corks are counted
 * by the stream: pg's own cork around each query's messages stays within this one.
 */
function coalesceWrites(client: pg.PoolClient): () => void {
  const socket = (client as unknown as { connection: { stream: Writable } }).connection.stream;
  let corked = false;
  const release = () => {
    corked = false;
    socket.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    socket.cork();
    process.nextTick(release);
  };
}

/**
 * The batch's two statements inside a transaction the caller opened. `commit`, when given, is
 * sent right behind the second statement (pipelined) and awaited with it; without it the caller
 * ends the transaction.
 */
export async function writeBooksWith(run: PostgresRun, batch: BooksBatch, commit?: () => Promise<unknown>): Promise<BookOutcome[]> {
  const rows = uniqueRows(batch.items);
  const taken = await takeBooks(run, mapPacked(rows, toRequestJsonRow), candidateSettlements(batch, rows));
  const fresh = new Set(taken.fresh);
  const active = activeSettlements(batch.items, fresh);
  const plan = planSettlements(batch.items, active, assignTaken(batch.items, active, taken.deleted, taken.shrunk));
  const accounts = new Map(taken.accounts.map((account) => [account.id, account.free]));
  // A key without a limit has no free amount: it is absent from the map.
  const keys = new Map<string, bigint>();
  for (const key of taken.keys) if (key.free !== null) keys.set(key.id, key.free);
  const indexes = [...plan.charges.keys()];
  const allocated = allocateCharges([...plan.charges.values()], accounts, keys);
  const allocations = new Map<number, Allocation>(indexes.map((index, position) => [index, allocated[position]]));
  const summary = summarizeCharges(plan, allocations, batch.items, batch);
  const logged = chargedRows(batch.items, rows, fresh, allocations);
  const rollups = rollUpRequests(mapPacked(logged, (row) => row.record));
  // applyBooks sends its statement before it first awaits: a commit asked for now goes out behind it.
  const applied = applyBooks(run, {
    accounts: summary.accounts,
    keys: summary.keys,
    entries: summary.entries,
    costs: mapPacked(
      logged.filter((row) => row.cost !== row.original),
      (row) => ({ id: row.record.id, cost: row.cost }),
    ),
    rollups,
    summaries: summarizeUsage(rollups),
  });
  await (commit ? Promise.all([applied, commit()]) : applied);
  return mapPacked(batch.items, (item, index): BookOutcome => {
    const allocation = allocations.get(index);
    if (allocation) return { charged: allocation.charged, uncollected: allocation.uncollected, applied: true };
    return item.row && !item.settlement && fresh.has(item.row.id) ? { charged: 0n, uncollected: 0n, applied: true } : notApplied;
  });
}

/**
 * The settlements the batch applies if their row turns out new: the rule of `activeSettlements`
 * with every row taken as new (the first settlement of each row; every one without a row). The
 * first statement keeps those whose row it inserted, so that it applies exactly the settlements
 * `activeSettlements` picks once the new rows are known.
 */
function candidateSettlements(batch: BooksBatch, rows: readonly { id: string }[]): CandidateSettlement[] {
  return mapPacked(activeSettlements(batch.items, new Set(rows.map((row) => row.id))), (index) => {
    const { settlement, row } = batch.items[index];
    return {
      rowId: row ? row.id : null,
      reservationId: settlement!.reservationId,
      heldInLease: settlement!.leaseHeld ?? null,
      accountId: settlement!.accountId,
      keyId: settlement!.keyId,
    };
  });
}
