import type { Writable } from 'node:stream';
import type pg from 'pg';
import { allocateCharges, type Allocation } from './allocate-charges.js';
import { rollUpRequests } from './roll-up-requests.js';
import { activeSettlements, assignTaken, chargedRows, notApplied, planSettlements, summarizeCharges, uniqueRows, type BookOutcome, type BooksBatch } from './plan-books.js';
import { isDatabaseUnavailable } from '../store/database-errors.js';
import { applyBooks, runOnClient, takeBooks, type CandidateSettlement, type PostgresRun } from '../store/repositories/books-postgres.js';
import { toRequestRow } from '../store/repositories/requests.js';

/**
 * The books writer's connection: checked out of the pool for the first batch and kept while
 * batches follow one another (the writer sends one at a time), given back after `idleMs` without
 * a batch, when it breaks, or at `close()`. Checking a client out per batch cost a turn of the
 * event loop before every batch (~0.8 ms of a ~6 ms cycle at 2,000 requests/s, during which
 * the settlements behind it wait). While held, the client pipelines (it is the writer's alone).
 */
export class BooksConnection {
  private client: pg.PoolClient | undefined;
  private connecting: Promise<pg.PoolClient> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private pipelinedBefore = false;
  private busy = false;
  /** A held client is out of the pool's care: its connection failing between batches must not go unheard. */
  private readonly onError = (error: Error) => this.giveBack(error);

  constructor(
    readonly pool: pg.Pool,
    private readonly idleMs = 1_000,
  ) {}

  async acquire(): Promise<pg.PoolClient> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.busy = true;
    if (this.client) return this.client;
    this.connecting ??= this.pool.connect().finally(() => {
      this.connecting = undefined;
    });
    let client: pg.PoolClient;
    try {
      client = await this.connecting;
    } catch (error) {
      this.busy = false;
      throw error;
    }
    if (this.client !== client) {
      client.on('error', this.onError);
      const mode = client as unknown as { pipeline: boolean };
      this.pipelinedBefore = mode.pipeline;
      // Nothing is queued on a client just checked out: a safe point to switch.
      mode.pipeline = true;
      this.client = client;
    }
    return client;
  }

  /** After a batch: keeps the client for the next one, or gives it back broken. */
  done(broken?: Error): void {
    this.busy = false;
    if (broken) {
      this.giveBack(broken);
      return;
    }
    if (!this.client || this.idleTimer) return;
    this.idleTimer = setTimeout(() => this.giveBack(), this.idleMs);
    this.idleTimer.unref();
  }

  /** Gives the client back to the pool; one still in a batch (a close that timed out) is discarded. */
  close(): void {
    this.giveBack(this.busy ? new Error('books connection closed during a batch') : undefined);
  }

  private giveBack(broken?: Error): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    client.removeListener('error', this.onError);
    (client as unknown as { pipeline: boolean }).pipeline = this.pipelinedBefore;
    client.release(broken);
  }
}

/**
 * A batch of settlements, request log rows and usage rollups in one PostgreSQL transaction of
 * two statements, whatever the batch's size: the first writes the rows, takes the reservations
 * of the settlements to apply and locks their accounts and keys in the global order; the
 * charges are allocated here, under that lock; the second applies them. The connection
 * pipelines: `begin` goes out with the first statement and `commit` with the second, so the
 * batch waits for two answers, not four. A statement that fails aborts the transaction, and a
 * `commit` behind it then only ends it (PostgreSQL answers ROLLBACK). On any error the
 * transaction is rolled back and the connection given back broken when it is.
 * What is sent in one tick leaves in one socket write (`begin` with the first statement, the
 * second with `commit`): two writes a batch instead of four, each a system call whose cost at
 * low load is paid per request.
 */
export async function writeBooksPostgres(connection: BooksConnection, batch: BooksBatch): Promise<BookOutcome[]> {
  const client = await connection.acquire();
  let broken: Error | undefined;
  const together = coalesceWrites(client);
  try {
    // Sent before `begin` is answered; should `begin` fail, nothing more is sent (answers come
    // in order: its failure is known before the first statement's answer is read).
    let failed: unknown;
    together();
    const begun = client.query('begin').catch((error: unknown) => {
      failed = error;
      throw error;
    });
    const send = runOnClient(client);
    // After a failed `begin` nothing more goes out; otherwise each message joins this tick's write.
    const sendUnlessFailed = <T>(sendNow: () => Promise<T>): Promise<T> => {
      if (failed !== undefined) return Promise.reject(failed);
      together();
      return sendNow();
    };
    const run: PostgresRun = (query) => sendUnlessFailed(() => send(query));
    const written = writeBooksWith(run, batch, () => sendUnlessFailed(() => client.query('commit')));
    try {
      const [, outcomes] = await Promise.all([begun, written]);
      return outcomes;
    } catch (error) {
      // Nothing of the batch may be sent after the rollback: let the rest settle first. The
      // rollback is answered after everything sent before it; then the connection is idle.
      await Promise.allSettled([begun, written]);
      await client.query('rollback').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } catch (error) {
    broken ??= isDatabaseUnavailable(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    connection.done(broken);
  }
}

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
  const taken = await takeBooks(run, rows.map(toRequestRow), candidateSettlements(batch, rows));
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
  // applyBooks sends its statement before it first awaits: a commit asked for now goes out behind it.
  const applied = applyBooks(run, {
    accounts: summary.accounts,
    keys: summary.keys,
    entries: summary.entries,
    costs: logged.filter((row) => row.cost !== row.original).map((row) => ({ id: row.record.id, cost: row.cost })),
    rollups: rollUpRequests(logged.map((row) => row.record)),
  });
  await (commit ? Promise.all([applied, commit()]) : applied);
  return batch.items.map((item, index): BookOutcome => {
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
  return activeSettlements(batch.items, new Set(rows.map((row) => row.id))).map((index) => {
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
