import type { Kysely } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../../store/database.js';
import { toBigInt } from '../../store/convert.js';
import { accountFree, accountFreeSql, keyFree, keyFreeSql, memberFree, memberFreeSql } from './free-funds.js';

/**
 * A lease is a reservation row held by an instance (`instance_id`), whose amount the instance
 * hands out in memory to its requests; settlements shrink it (`books-*.ts`), the sweep releases
 * it like any reservation when the instance dies. These statements grow and shrink it; how much
 * (the sizing rule) is the caller's.
 */
export interface GrowLease {
  id: string;
  accountId: string;
  keyId: string | null;
  instanceId: string;
  createdAt: string;
  expiresAt: string;
  /** What the lease may grow by, from what the account (and key) has free: a function of it. */
  size(free: bigint): bigint;
}

/**
 * Grows (or opens) a lease by `size(free)` in one transaction, in the global lock order every
 * writer keeps: the reservation row first (as settlements and releases take it), then the
 * account, then the key. Answers the amount added (0: too little free, nothing changed), or
 * null when the lease was ended meanwhile (swept): the caller must open a new one.
 */
export async function growLease(db: Kysely<Database>, lease: GrowLease, existing: boolean): Promise<bigint | null> {
  return db.transaction().execute(async (trx) => {
    if (existing) {
      const row = await trx.selectFrom('reservations').select('id').where('id', '=', lease.id).forUpdate().executeTakeFirst();
      if (!row) return null;
    }
    const account = await trx
      .selectFrom('accounts')
      .select(accountFree.as('free'))
      .where('id', '=', lease.accountId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!account) return 0n;
    let free = toBigInt(account.free);
    if (lease.keyId !== null) {
      const key = await trx
        .selectFrom('api_keys')
        .select([keyFree.as('free'), 'created_by_user_id'])
        .where('id', '=', lease.keyId)
        .forNoKeyUpdate()
        .executeTakeFirst();
      if (!key) return 0n;
      if (key.free !== null && toBigInt(key.free) < free) free = toBigInt(key.free);
      if (key.created_by_user_id !== null) {
        // The member's row: every writer of it holds the account's lock, taken above.
        const member = await trx
          .selectFrom('memberships')
          .select(memberFree.as('free'))
          .where('account_id', '=', lease.accountId)
          .where('user_id', '=', key.created_by_user_id)
          .executeTakeFirst();
        if (member && member.free !== null && toBigInt(member.free) < free) free = toBigInt(member.free);
      }
    }
    const amount = lease.size(free);
    if (amount <= 0n || amount > free) return 0n;
    await trx.updateTable('accounts').set((eb) => ({ reserved: eb('reserved', '+', amount) })).where('id', '=', lease.accountId).execute();
    if (lease.keyId !== null) await trx.updateTable('api_keys').set((eb) => ({ reserved: eb('reserved', '+', amount) })).where('id', '=', lease.keyId).execute();
    if (existing) {
      await trx.updateTable('reservations').set((eb) => ({ amount: eb('amount', '+', amount), expires_at: lease.expiresAt })).where('id', '=', lease.id).execute();
    } else {
      await trx
        .insertInto('reservations')
        .values({ id: lease.id, account_id: lease.accountId, key_id: lease.keyId, request_id: lease.id, amount, created_at: lease.createdAt, expires_at: lease.expiresAt, instance_id: lease.instanceId })
        .execute();
    }
    return amount;
  });
}

/**
 * Gives `amount` of a lease back to the account and key (same lock order: reservation, account,
 * key). Answers false when the lease row is gone or holds less (nothing changed).
 */
export async function shrinkLease(db: Kysely<Database>, id: string, amount: bigint): Promise<boolean> {
  if (amount <= 0n) return true;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('reservations')
      .set((eb) => ({ amount: eb('amount', '-', amount) }))
      .where('id', '=', id)
      .where('amount', '>=', amount)
      .returning(['account_id', 'key_id'])
      .executeTakeFirst();
    if (!row) return false;
    await trx.updateTable('accounts').set((eb) => ({ reserved: eb('reserved', '-', amount) })).where('id', '=', row.account_id).execute();
    if (row.key_id !== null) await trx.updateTable('api_keys').set((eb) => ({ reserved: eb('reserved', '-', amount) })).where('id', '=', row.key_id).execute();
    return true;
  });
}

/**
 * Moves `amount` out of the lease row `leaseId` into a reservation row of its own, `id` (same
 * account, key, instance and expiry), in one statement: the totals on the account and key do
 * not change, so only the lease row is locked. Idempotent: run again (its answer was lost), it
 * finds `id` and changes nothing; run twice at once, the primary key lets one commit. Answers
 * whether `id` exists now (false: the lease row was gone or held less, nothing moved).
 */
export async function carveFromLease(pool: pg.Pool, carve: { leaseId: string; id: string; requestId: string; amount: bigint; createdAt: string }): Promise<boolean> {
  try {
    await pool.query({
      name: 'switchyard_carve_lease',
      text: `with taken as (
               update reservations set amount = amount - $3
               where id = $1 and amount >= $3 and not exists (select 1 from reservations where id = $2)
               returning account_id, key_id, expires_at, instance_id)
             insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id)
             select $2, account_id, key_id, $4, $3, $5, expires_at, instance_id from taken`,
      values: [carve.leaseId, carve.id, carve.amount.toString(), carve.requestId, carve.createdAt],
    });
  } catch (error) {
    // 23505: a concurrent run of the same carve committed first.
    if ((error as { code?: unknown }).code !== '23505') throw error;
  }
  const found = await pool.query({ name: 'switchyard_reservation_exists', text: 'select 1 from reservations where id = $1', values: [carve.id] });
  return found.rowCount === 1;
}

/** The lease statements on SQLite: prepared once, each a synchronous immediate transaction. */
export interface SqliteLeaseStatements {
  /** As `growLease`. */
  grow(lease: GrowLease, existing: boolean): bigint | null;
  /** As `shrinkLease`. */
  shrink(id: string, amount: bigint): boolean;
  /** As `carveFromLease`. */
  carve(carve: { leaseId: string; id: string; requestId: string; amount: bigint; createdAt: string }): boolean;
}

const sqliteStatements = new WeakMap<SqliteDatabase.Database, SqliteLeaseStatements>();

/**
 * The lease statements for SQLite's one connection, as `growLease`, `shrinkLease` and
 * `carveFromLease` do on PostgreSQL. No row locks: the immediate transaction holds the database's
 * one write lock, and the synchronous driver runs nothing else in between.
 */
export function sqliteLeaseStatements(database: SqliteDatabase.Database): SqliteLeaseStatements {
  let statements = sqliteStatements.get(database);
  if (statements) return statements;
  const exists = database.prepare('select 1 from reservations where id = ?').pluck();
  const accountFree = database.prepare(`select ${accountFreeSql} from accounts where id = ?`).pluck();
  const keyFree = database.prepare(`select ${keyFreeSql} as free, created_by_user_id from api_keys where id = ?`);
  const memberFree = database.prepare(`select ${memberFreeSql} from memberships where account_id = ? and user_id = ?`).pluck();
  const changeAccount = database.prepare('update accounts set reserved = reserved + ? where id = ?');
  const changeKey = database.prepare('update api_keys set reserved = reserved + ? where id = ?');
  const growRow = database.prepare('update reservations set amount = amount + ?, expires_at = ? where id = ?');
  const insert = database.prepare(
    'insert into reservations (id, account_id, key_id, request_id, amount, created_at, expires_at, instance_id) values (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const take = database.prepare('update reservations set amount = amount - ? where id = ? and amount >= ? returning account_id, key_id, expires_at, instance_id');
  const grow = database.transaction((lease: GrowLease, existing: boolean): bigint | null => {
    if (existing && exists.get(lease.id) === undefined) return null;
    const account = accountFree.get(lease.accountId) as bigint | undefined;
    if (account === undefined) return 0n;
    let free = account;
    if (lease.keyId !== null) {
      const key = keyFree.get(lease.keyId) as { free: bigint | null; created_by_user_id: string | null } | undefined;
      if (key === undefined) return 0n;
      if (key.free !== null && key.free < free) free = key.free;
      if (key.created_by_user_id !== null) {
        const member = memberFree.get(lease.accountId, key.created_by_user_id) as bigint | null | undefined;
        if (member !== undefined && member !== null && member < free) free = member;
      }
    }
    const amount = lease.size(free);
    if (amount <= 0n || amount > free) return 0n;
    changeAccount.run(amount, lease.accountId);
    if (lease.keyId !== null) changeKey.run(amount, lease.keyId);
    if (existing) growRow.run(amount, lease.expiresAt, lease.id);
    else insert.run(lease.id, lease.accountId, lease.keyId, lease.id, amount, lease.createdAt, lease.expiresAt, lease.instanceId);
    return amount;
  });
  const shrink = database.transaction((id: string, amount: bigint): boolean => {
    if (amount <= 0n) return true;
    const row = take.get(amount, id, amount) as { account_id: string; key_id: string | null } | undefined;
    if (!row) return false;
    changeAccount.run(-amount, row.account_id);
    if (row.key_id !== null) changeKey.run(-amount, row.key_id);
    return true;
  });
  const carve = database.transaction((one: { leaseId: string; id: string; requestId: string; amount: bigint; createdAt: string }): boolean => {
    if (exists.get(one.id) !== undefined) return true;
    const lease = take.get(one.amount, one.leaseId, one.amount) as { account_id: string; key_id: string | null; expires_at: string; instance_id: string | null } | undefined;
    if (!lease) return false;
    insert.run(one.id, lease.account_id, lease.key_id, one.requestId, one.amount, one.createdAt, lease.expires_at, lease.instance_id);
    return true;
  });
  statements = {
    grow: (lease, existing) => grow.immediate(lease, existing),
    shrink: (id, amount) => shrink.immediate(id, amount),
    carve: (one) => carve.immediate(one),
  };
  sqliteStatements.set(database, statements);
  return statements;
}

/**
 * What fund leases hold of each of these keys' limits (docs/leases.md): a lease is a reservation
 * row whose `request_id` is its own id. Keys without a lease are absent.
 */
export async function leasedOfKeys(db: Kysely<Database>, accountId: string, keyIds: readonly string[]): Promise<Map<string, bigint>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('reservations')
    .select(['key_id', (eb) => eb.fn.sum<string | number | bigint>('amount').as('leased')])
    .where('account_id', '=', accountId)
    .where('key_id', 'in', keyIds)
    .whereRef('id', '=', 'request_id')
    .groupBy('key_id')
    .execute();
  return new Map(rows.filter((row) => row.key_id !== null).map((row) => [row.key_id!, toBigInt(row.leased)]));
}
