import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { accountFreeSql, keyFreeSql, memberFreeSql } from './free-funds.js';

export type ReserveOutcome = 'reserved' | 'insufficient_balance' | 'key_limit' | 'member_limit';

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
 * The reserve check, PostgreSQL's one copy: `switchyard_reserve_many` (migration
 * 2026-11-25-1900) locks the batch's accounts then keys in id order and, for each reservation in
 * turn, adds it to the account's and key's `reserved` only where neither the balance nor the
 * key's limit would go below zero — nor, for a key a member made, the member's (migration
 * 2026-12-07-2020); one call, one transaction, in autocommit.
 */
export async function callReserveMany(pool: pg.Pool, inputs: readonly ReservationInput[]): Promise<ReserveOutcome[]> {
  const result = await pool.query<{ outcomes: ReserveOutcome[] }>({
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
  });
  return result.rows[0].outcomes;
}

/** Deletes a reservation and gives its amount back; answers whether it was there. */
export async function callRelease(pool: pg.Pool, reservationId: string): Promise<boolean> {
  const result = await pool.query<{ amount: bigint | null }>({ name: 'switchyard_release', text: 'select switchyard_release($1) as amount', values: [reservationId] });
  return result.rows[0].amount !== null;
}

export interface SqliteReservationStatements {
  /** One immediate transaction; each reservation checked in order against those before it. */
  reserveMany(inputs: readonly ReservationInput[]): ReserveOutcome[];
  release(reservationId: string): boolean;
}

const prepared = new WeakMap<SqliteDatabase.Database, SqliteReservationStatements>();

/** The reserve check, SQLite's one copy: conditional updates in one synchronous transaction. */
export function sqliteReservationStatements(database: SqliteDatabase.Database): SqliteReservationStatements {
  let statements = prepared.get(database);
  if (statements) return statements;
  const reserveAccount = database.prepare(`update accounts set reserved = reserved + ? where id = ? and ${accountFreeSql} >= ?`);
  const reserveKey = database.prepare(`update api_keys set reserved = reserved + ? where id = ? and (spend_limit is null or ${keyFreeSql} >= ?) returning created_by_user_id`);
  // After the key's reservation, which the trigger added to its member's `reserved` too.
  const memberOver = database.prepare(`select 1 from memberships where account_id = ? and user_id = ? and spend_limit is not null and ${memberFreeSql} < 0`).pluck();
  const insert = database.prepare(
    'insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const remove = database.prepare('delete from reservations where id = ? returning account_id, key_id, amount');
  const releaseAccount = database.prepare('update accounts set reserved = reserved - ? where id = ?');
  const releaseKey = database.prepare('update api_keys set reserved = reserved - ? where id = ?');
  const reserveOne = (input: ReservationInput): ReserveOutcome => {
    if (reserveAccount.run(input.amount, input.accountId, input.amount).changes === 0) return 'insufficient_balance';
    if (input.keyId !== null) {
      const key = reserveKey.get(input.amount, input.keyId, input.amount) as { created_by_user_id: string | null } | undefined;
      if (!key) {
        releaseAccount.run(input.amount, input.accountId);
        return 'key_limit';
      }
      if (key.created_by_user_id !== null && memberOver.get(input.accountId, key.created_by_user_id) !== undefined) {
        releaseKey.run(input.amount, input.keyId);
        releaseAccount.run(input.amount, input.accountId);
        return 'member_limit';
      }
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
