import pino from 'pino';
import type pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/create-account.js';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { Ledger } from '../../src/billing/ledger.js';
import { RequestLog } from '../../src/billing/request-log.js';
import { systemClock } from '../../src/core/clock.js';
import { createId } from '../../src/core/ids.js';
import { completedRecord } from '../helpers/completed-record.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';

/**
 * Issue 23: a settlement out of a lease is applied exactly once even when the database commits
 * it and the answer is lost, so that the writer runs it again (a connection cut between COMMIT
 * and its reply; the same holds for a conflict retried by `retryOnConflict`, whose transaction
 * rolled back whole). With a request log row the row makes the retry a no-op; without one (a
 * media charge whose row follows apart) the lease row's change alone could not tell, so the
 * amount first moves into a reservation row of the request's own, idempotently.
 *
 * The lost answer is made on a real PostgreSQL: the statement runs, then its caller is told the
 * connection died (08006), as pg reports a cut connection.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL lease settlement retry tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

const leases = { maxGrantNano: 1_000_000_000n, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000 };
const lostAnswer = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });

describe.skipIf(!postgresUrl)('lease settlements retried after a lost commit answer (PostgreSQL)', () => {
  let test: TestStore;
  const context = () => ({ store: test.store, clock: systemClock, createId });
  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
  });
  afterAll(async () => test?.close());

  /**
   * The next `count` COMMITs on pooled clients that take effect answer as a cut connection (a
   * COMMIT that only ended a failed transaction, answered ROLLBACK, is answered as it was).
   */
  function loseCommitAnswers(pool: pg.Pool, count: number): () => void {
    const connect = pool.connect.bind(pool);
    let left = count;
    pool.connect = ((...args: unknown[]) => {
      // pool.query's own callback form is left alone.
      if (args.length > 0) return (connect as (...inner: unknown[]) => unknown)(...args);
      return connect().then((client) => {
        const query = client.query.bind(client) as (...inner: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...inner: unknown[]) => {
          if (inner[0] === 'commit' && left > 0) {
            return query(...inner).then((result) => {
              if ((result as { command?: string }).command !== 'COMMIT' || left === 0) return result;
              left -= 1;
              return Promise.reject(lostAnswer());
            });
          }
          return query(...inner);
        };
        return client;
      });
    }) as typeof pool.connect;
    return () => {
      pool.connect = connect as typeof pool.connect;
    };
  }

  /** The next `count` runs of the named prepared statement through `pool.query` take effect and answer as a cut connection. */
  function loseStatementAnswers(pool: pg.Pool, name: string, count: number): { restore(): void; lost(): number } {
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    let left = count;
    pool.query = ((...args: unknown[]) => {
      const config = args[0] as { name?: string };
      if (config?.name === name && left > 0) {
        left -= 1;
        return query(...args).then(() => Promise.reject(lostAnswer()));
      }
      return query(...args);
    }) as typeof pool.query;
    return {
      restore: () => {
        pool.query = query as typeof pool.query;
      },
      lost: () => count - left,
    };
  }

  async function setUp() {
    const { account } = await createAccount(context(), { credits: 1_000_000_000n });
    const { record: key } = await createApiKey(test.store.db, context(), { accountId: account.id, name: 'retry', management: false, spendLimit: 500_000_000n });
    const books = new RequestLog({ store: test.store, logger: pino({ level: 'silent' }), createId }, { retryDelayMs: 10 });
    const ledger = new Ledger(context(), { instanceId: createId('ins'), instanceTimeoutMs: 60_000, books, leases });
    await ledger.startInstance();
    return { accountId: account.id, keyId: key.id, ledger, books };
  }

  async function booksOf(accountId: string, keyId: string) {
    const row = await sql<{ usage: string; reserved: string; key_usage: string; key_reserved: string; held: string | null; charges: string | null; entries: string }>`
      select a.total_usage::text as usage, a.reserved::text as reserved, k.usage::text as key_usage, k.reserved::text as key_reserved,
        (select sum(amount) from reservations where account_id = a.id)::text as held,
        (select sum(amount) from ledger_entries where account_id = a.id and kind = 'charge')::text as charges,
        (select count(*) from ledger_entries where account_id = a.id and kind = 'charge')::text as entries
      from accounts a join api_keys k on k.account_id = a.id where a.id = ${accountId} and k.id = ${keyId}`.execute(test.store.db);
    const [one] = row.rows;
    return {
      usage: BigInt(one.usage),
      reserved: BigInt(one.reserved),
      keyUsage: BigInt(one.key_usage),
      keyReserved: BigInt(one.key_reserved),
      held: BigInt(one.held ?? 0),
      charges: BigInt(one.charges ?? 0),
      entries: Number(one.entries),
    };
  }

  it('a settlement without a request log row, its batch written again after the commit answer was lost: charged once, the lease row shrunk once', async () => {
    const { accountId, keyId, ledger, books } = await setUp();
    const amount = 2_000_000n;
    const cost = 1_500_000n;
    const reservation = await ledger.reserve({ accountId, keyId, requestId: createId('req'), amount });
    expect(reservation.leaseId).toBeDefined();
    const leaseBefore = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    const restore = loseCommitAnswers(test.store.pool!, 1);
    try {
      await ledger.settle(reservation, cost);
    } finally {
      restore();
    }
    // The batch was written twice: the first commit took effect, its answer was lost.
    expect(books.stats().failedWrites).toBe(1);
    const leaseAfter = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    expect(BigInt(leaseBefore.amount) - BigInt(leaseAfter.amount)).toBe(amount);
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, keyUsage: cost, charges: cost, entries: 1 });
    await ledger.returnLeases();
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, reserved: 0n, keyReserved: 0n, held: 0n });
  });

  it('a settlement whose request log row the database refuses for its data (quarantined), its batch written again after the commit answer was lost: charged once, the lease row shrunk once', async () => {
    const { accountId, keyId, ledger, books } = await setUp();
    const amount = 2_000_000n;
    const cost = 1_500_000n;
    const requestId = createId('req');
    const reservation = await ledger.reserve({ accountId, keyId, requestId, amount });
    expect(reservation.leaseId).toBeDefined();
    const leaseBefore = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    // A provider reporting more web searches than the integer column holds: the row is refused
    // for its data (22003). The writer's stripped row kept the count and was refused too, and the
    // settlement then went alone, without a row to make its retry a no-op (issue 46).
    const record = completedRecord(accountId, { id: requestId, keyId, cost, webSearchRequests: 2 ** 40 });
    const restore = loseCommitAnswers(test.store.pool!, 1);
    let charged: bigint;
    try {
      charged = await ledger.settle(reservation, cost, record);
    } finally {
      restore();
    }
    expect(charged).toBe(cost);
    // The quarantined item's write committed, its answer was lost, and the batch was written again.
    expect(books.stats()).toMatchObject({ failedWrites: 1, quarantined: 2 });
    const leaseAfter = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    expect(BigInt(leaseBefore.amount) - BigInt(leaseAfter.amount)).toBe(amount);
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, keyUsage: cost, charges: cost, entries: 1 });
    const logged = await test.store.db.selectFrom('requests').select(['cost', 'error_code', 'web_search_requests']).where('id', '=', requestId).executeTakeFirstOrThrow();
    expect({ cost: BigInt(logged.cost), errorCode: logged.error_code, webSearchRequests: logged.web_search_requests }).toEqual({ cost, errorCode: 'row_quarantined', webSearchRequests: null });
    await ledger.returnLeases();
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, reserved: 0n, keyReserved: 0n, held: 0n });
  });

  it("a give-back of a lease's spare whose commit answer was lost: the instance never again hands out what its lease row gave back", async () => {
    const { accountId, keyId, ledger } = await setUp();
    const reservation = await ledger.reserve({ accountId, keyId, requestId: createId('req'), amount: 2_000_000n });
    expect(reservation.leaseId).toBeDefined();
    await ledger.release(reservation);
    const granted = await ledger.leasedUnused(accountId);
    expect(granted).toBeGreaterThan(0n);
    const restore = loseCommitAnswers(test.store.pool!, 1);
    try {
      await ledger.giveBackSpare(accountId);
    } finally {
      restore();
    }
    // The give-back committed: the row holds nothing, the account nothing reserved.
    const row = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    expect(BigInt(row.amount)).toBe(0n);
    expect(await booksOf(accountId, keyId)).toMatchObject({ reserved: 0n, keyReserved: 0n });
    // What the instance may still hand out of the lease is no more than its row holds.
    expect(await ledger.leasedUnused(accountId)).toBe(0n);
    await ledger.returnLeases();
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: 0n, reserved: 0n, keyReserved: 0n, held: 0n });
  });

  it('the move out of the lease run again after its answer was lost: moved once, charged once', async () => {
    const { accountId, keyId, ledger } = await setUp();
    const amount = 2_000_000n;
    const cost = 2_000_000n;
    const reservation = await ledger.reserve({ accountId, keyId, requestId: createId('req'), amount });
    expect(reservation.leaseId).toBeDefined();
    const leaseBefore = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    const fault = loseStatementAnswers(test.store.pool!, 'switchyard_carve_lease', 2);
    try {
      await ledger.settle(reservation, cost);
    } finally {
      fault.restore();
    }
    // Run three times: twice it took effect (the first time) or found its row (the second), unheard.
    expect(fault.lost()).toBe(2);
    const leaseAfter = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', reservation.leaseId!).executeTakeFirstOrThrow();
    expect(BigInt(leaseBefore.amount) - BigInt(leaseAfter.amount)).toBe(amount);
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, charges: cost, entries: 1 });
    // The request's own row is gone with its settlement; only the lease row is left, and it goes back.
    expect(await test.store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute()).toEqual([{ id: reservation.leaseId }]);
    await ledger.returnLeases();
    expect(await booksOf(accountId, keyId)).toMatchObject({ usage: cost, reserved: 0n, keyReserved: 0n, held: 0n });
  });
});
