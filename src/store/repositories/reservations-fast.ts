import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { Store } from '../create-store.js';
import { retryOnConflict } from '../retry-conflicts.js';
import { reserveFunds, type ReserveOutcome } from './ledger.js';

export interface ReservationInput {
  id: string;
  accountId: string;
  keyId: string | null;
  requestId: string;
  amount: bigint;
  createdAt: string;
  expiresAt: string;
  instanceId: string | null;
}

/**
 * The reservation in one round trip: PostgreSQL calls `switchyard_reserve_many` (migration
 * 2026-11-24-2320) in autocommit, for the reservations queued while the previous call ran;
 * SQLite runs prepared statements in one synchronous transaction, shared by the reservations of
 * one event-loop turn. The same checks as `reserveFunds`: neither the balance nor the key's
 * limit can go below zero, whatever runs at the same time.
 */
export async function reserveOnce(store: Store, input: ReservationInput): Promise<ReserveOutcome> {
  if (store.pool) return reserveInPostgresBatch(store.pool, input);
  const database = store.sqlite!;
  // Kysely holds SQLite's one connection inside an open transaction across awaits (the task
  // engine does); statements run now would join it. Go through Kysely then, which waits its turn.
  if (database.inTransaction) {
    return store.db.transaction().execute(async (trx) => {
      const outcome = await reserveFunds(trx, input);
      if (outcome === 'key_limit') throw keyLimitMarker;
      return outcome;
    }).catch((error: unknown) => {
      if (error === keyLimitMarker) return 'key_limit' as const;
      throw error;
    });
  }
  return reserveInNextBatch(database, input);
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
    const inputs = batch.map((entry) => entry.input);
    try {
      // A conflict rolled the whole call back: it is sent again before any caller hears of it.
      const result = await retryOnConflict(() => pool.query<{ outcomes: ReserveOutcome[] }>({
        name: 'switchyard_reserve_many',
        text: 'select switchyard_reserve_many($1, $2, $3, $4, $5::bigint[], $6, $7, $8) as outcomes',
        values: [
          inputs.map((one) => one.id),
          inputs.map((one) => one.accountId),
          inputs.map((one) => one.keyId),
          inputs.map((one) => one.requestId),
          inputs.map((one) => one.amount.toString()),
          inputs.map((one) => one.createdAt),
          inputs.map((one) => one.expiresAt),
          inputs.map((one) => one.instanceId),
        ],
      }));
      const { outcomes } = result.rows[0];
      batch.forEach((entry, index) => entry.resolve(outcomes[index]));
    } catch (error) {
      // The call is one transaction: nothing of it was applied, and each caller hears why.
      for (const entry of batch) entry.reject(error);
    }
  }
  batcher.inFlight = false;
}

interface PendingReservation {
  input: ReservationInput;
  resolve(outcome: ReserveOutcome): void;
  reject(error: unknown): void;
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
    // A Kysely transaction holds the connection across awaits; try again on the next turn.
    for (const entry of pending) reserveInNextBatch(database, entry.input).then(entry.resolve, entry.reject);
    return;
  }
  let outcomes: ReserveOutcome[];
  try {
    outcomes = sqliteStatements(database).reserveMany(pending.map((entry) => entry.input));
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
  if (store.pool) {
    const pool = store.pool;
    const result = await retryOnConflict(() => pool.query<{ amount: bigint | null }>({ name: 'switchyard_release', text: 'select switchyard_release($1) as amount', values: [reservationId] }));
    return result.rows[0].amount !== null;
  }
  const database = store.sqlite!;
  if (database.inTransaction) {
    await new Promise((resolve) => setImmediate(resolve));
    return releaseOnce(store, reservationId);
  }
  return sqliteStatements(database).release(reservationId);
}

const keyLimitMarker = new Error('key_limit');

interface SqliteReservationStatements {
  reserveMany(inputs: readonly ReservationInput[]): ReserveOutcome[];
  release(reservationId: string): boolean;
}

const prepared = new WeakMap<SqliteDatabase.Database, SqliteReservationStatements>();

function sqliteStatements(database: SqliteDatabase.Database): SqliteReservationStatements {
  let statements = prepared.get(database);
  if (statements) return statements;
  const reserveAccount = database.prepare('update accounts set reserved = reserved + ? where id = ? and total_credits - total_usage - reserved >= ?');
  const reserveKey = database.prepare('update api_keys set reserved = reserved + ? where id = ? and (spend_limit is null or spend_limit - usage - reserved >= ?)');
  const insert = database.prepare(
    'insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const remove = database.prepare('delete from reservations where id = ? returning account_id, key_id, amount');
  const releaseAccount = database.prepare('update accounts set reserved = reserved - ? where id = ?');
  const releaseKey = database.prepare('update api_keys set reserved = reserved - ? where id = ?');
  const reserveOne = (input: ReservationInput): ReserveOutcome => {
    if (reserveAccount.run(input.amount, input.accountId, input.amount).changes === 0) return 'insufficient_balance';
    if (input.keyId !== null && reserveKey.run(input.amount, input.keyId, input.amount).changes === 0) {
      releaseAccount.run(input.amount, input.accountId);
      return 'key_limit';
    }
    insert.run(input.id, input.accountId, input.keyId, input.requestId, input.amount, input.createdAt, input.expiresAt, input.instanceId);
    return 'reserved';
  };
  const reserveMany = database.transaction((inputs: readonly ReservationInput[]): ReserveOutcome[] => inputs.map(reserveOne));
  const release = database.transaction((reservationId: string): boolean => {
    const row = remove.get(reservationId) as { account_id: string; key_id: string | null; amount: bigint } | undefined;
    if (!row) return false;
    releaseAccount.run(row.amount, row.account_id);
    if (row.key_id !== null) releaseKey.run(row.amount, row.key_id);
    return true;
  });
  statements = { reserveMany: (inputs) => reserveMany.immediate(inputs), release: (id) => release.immediate(id) };
  prepared.set(database, statements);
  return statements;
}
