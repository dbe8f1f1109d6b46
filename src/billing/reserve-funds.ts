import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { Store } from '../store/create-store.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { callRelease, callReserveMany, sqliteReservationStatements, type ReservationInput, type ReserveOutcome } from './db/reservations.js';

export type { ReservationInput, ReserveOutcome };

/**
 * The reservation in one round trip, group-committed: PostgreSQL calls `switchyard_reserve_many`
 * for the reservations queued while the previous call ran; SQLite runs its prepared statements
 * in one synchronous transaction, shared by the reservations of one event-loop turn. Neither the
 * balance nor the key's limit can go below zero, whatever runs at the same time.
 */
export async function reserveOnce(store: Store, input: ReservationInput): Promise<ReserveOutcome> {
  if (store.pool) return reserveInPostgresBatch(store.pool, input);
  return reserveInNextBatch(store.sqlite!, input);
}

interface PendingReservation {
  input: ReservationInput;
  resolve(outcome: ReserveOutcome): void;
  reject(error: unknown): void;
}

interface PostgresBatcher {
  inFlight: boolean;
  queued: PendingReservation[];
}

const postgresBatchers = new WeakMap<pg.Pool, PostgresBatcher>();

/**
 * Group commit for PostgreSQL reservations: at most one `switchyard_reserve_many` call per pool is
 * in flight; the reservations asked for meanwhile queue and go together in the next call, which
 * starts when the previous one ends. Idle, a reservation goes at once (a batch of one); under load
 * one call, one commit and one hold of a hot account's row lock serve many requests. Each still
 * answers only when its call has returned, in order, checked against those before it.
 */
function reserveInPostgresBatch(pool: pg.Pool, input: ReservationInput): Promise<ReserveOutcome> {
  let batcher = postgresBatchers.get(pool);
  if (!batcher) {
    batcher = { inFlight: false, queued: [] };
    postgresBatchers.set(pool, batcher);
  }
  const promise = new Promise<ReserveOutcome>((resolve, reject) => batcher.queued.push({ input, resolve, reject }));
  if (!batcher.inFlight) void sendPostgresBatch(pool, batcher);
  return promise;
}

async function sendPostgresBatch(pool: pg.Pool, batcher: PostgresBatcher): Promise<void> {
  batcher.inFlight = true;
  while (batcher.queued.length > 0) {
    const batch = batcher.queued;
    batcher.queued = [];
    try {
      // A conflict rolled the whole call back: it is sent again before any caller hears of it.
      const outcomes = await retryOnConflict(() => callReserveMany(pool, batch.map((entry) => entry.input)));
      batch.forEach((entry, index) => entry.resolve(outcomes[index]));
    } catch (error) {
      // The call is one transaction: nothing of it was applied, and each caller hears why.
      for (const entry of batch) entry.reject(error);
    }
  }
  batcher.inFlight = false;
}

const pendingByDatabase = new WeakMap<SqliteDatabase.Database, PendingReservation[]>();

/**
 * Group commit for SQLite reservations: those asked for in one event-loop turn share one
 * transaction (one commit, one WAL write) instead of one each, which is most of what a
 * reservation costs. Each still answers only once its transaction is committed, and each is
 * checked in order against what the ones before it took.
 */
function reserveInNextBatch(database: SqliteDatabase.Database, input: ReservationInput): Promise<ReserveOutcome> {
  return new Promise((resolve, reject) => {
    let pending = pendingByDatabase.get(database);
    if (!pending) {
      pending = [];
      pendingByDatabase.set(database, pending);
      setImmediate(() => commitReservations(database));
    }
    pending.push({ input, resolve, reject });
  });
}

function commitReservations(database: SqliteDatabase.Database): void {
  const pending = pendingByDatabase.get(database) ?? [];
  pendingByDatabase.delete(database);
  if (database.inTransaction) {
    // A Kysely transaction holds SQLite's one connection across awaits (the task engine's);
    // statements run now would join it. Try again on the next turn.
    for (const entry of pending) reserveInNextBatch(database, entry.input).then(entry.resolve, entry.reject);
    return;
  }
  let outcomes: ReserveOutcome[];
  try {
    outcomes = sqliteReservationStatements(database).reserveMany(pending.map((entry) => entry.input));
  } catch (error) {
    for (const entry of pending) entry.reject(error);
    return;
  }
  pending.forEach((entry, index) => entry.resolve(outcomes[index]));
}

/**
 * Ends a reservation without a charge (a failed call, a sweep): one function call on PostgreSQL,
 * one synchronous transaction on SQLite. Answers whether this call ended it (false when it was
 * already gone: settled, released or swept).
 */
export async function releaseOnce(store: Store, reservationId: string): Promise<boolean> {
  const pool = store.pool;
  if (pool) return retryOnConflict(() => callRelease(pool, reservationId));
  const database = store.sqlite!;
  while (database.inTransaction) await new Promise((resolve) => setImmediate(resolve));
  return sqliteReservationStatements(database).release(reservationId);
}
