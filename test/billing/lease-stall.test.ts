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
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';

/**
 * Issue 23 (docs/leases.md, "before an outage is noticed"): once settlements stop committing
 * (the database going silent, before any timeout has declared it down), no further request is
 * served out of a lease, whose answer would precede its durable charge; reservations go to the
 * database (the exact path), which answers or fails with 503. Charges queued meanwhile are
 * written once the database answers, each once, and the books close exactly.
 *
 * The silence is made on a real PostgreSQL: the settlement writer's connections (taken with
 * `pool.connect()`) are held back at a gate; `pool.query` (the exact reservation) still runs.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL lease stall tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

const leases = { maxGrantNano: 1_000_000_000n, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000 };

describe.skipIf(!postgresUrl)('leases while settlements do not commit (PostgreSQL)', () => {
  let test: TestStore;
  const context = () => ({ store: test.store, clock: systemClock, createId });
  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
  });
  afterAll(async () => test?.close());

  function holdConnections(pool: pg.Pool): { open(): void } {
    const connect = pool.connect.bind(pool);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    pool.connect = ((...args: unknown[]) => {
      if (args.length > 0) return (connect as (...inner: unknown[]) => unknown)(...args);
      return gate.then(() => connect());
    }) as typeof pool.connect;
    return {
      open: () => {
        pool.connect = connect as typeof pool.connect;
        open();
      },
    };
  }

  it('serves out of a lease while settlements commit, reserves exactly once one has waited past leaseStallMs, books exact after', async () => {
    const { account } = await createAccount(context(), { credits: 1_000_000_000n });
    const { record: key } = await createApiKey(test.store.db, context(), { accountId: account.id, name: 'stall', management: false, spendLimit: null });
    const books = new RequestLog({ store: test.store, logger: pino({ level: 'silent' }), createId }, { retryDelayMs: 10 });
    const ledger = new Ledger(context(), { instanceId: createId('ins'), instanceTimeoutMs: 60_000, books, leases, settleWaitMs: 50, leaseStallMs: 300 });
    await ledger.startInstance();
    const amount = 2_000_000n;
    const cost = 1_000_000n;
    const first = await ledger.reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount });
    expect(first.leaseId).toBeDefined();

    const silence = holdConnections(test.store.pool!);
    // The answer goes out after the settle wait, its charge queued.
    expect(await ledger.settle(first, cost)).toBe(cost);
    while (books.oldestSettlementWaitMs() < 300) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await ledger.reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount });
    expect(second.leaseId).toBeUndefined();
    // A row of its own (read with pool.query: Kysely's connections wait at the gate too).
    expect((await test.store.pool!.query('select amount::text as amount from reservations where id = $1', [second.id])).rows).toEqual([{ amount: amount.toString() }]);

    silence.open();
    await books.flush();
    expect(books.oldestSettlementWaitMs()).toBe(0);
    await ledger.settle(second, cost);
    // Settlements commit again: the lease serves again.
    const third = await ledger.reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount });
    expect(third.leaseId).toBe(first.leaseId);
    await ledger.settle(third, cost);
    await ledger.returnLeases();
    const row = await sql<{ usage: string; reserved: string; key_reserved: string; charges: string; entries: string; held: string | null }>`
      select a.total_usage::text as usage, a.reserved::text as reserved, k.reserved::text as key_reserved,
        (select sum(amount) from ledger_entries where account_id = a.id and kind = 'charge')::text as charges,
        (select count(*) from ledger_entries where account_id = a.id and kind = 'charge')::text as entries,
        (select sum(amount) from reservations where account_id = a.id)::text as held
      from accounts a join api_keys k on k.account_id = a.id where a.id = ${account.id} and k.id = ${key.id}`.execute(test.store.db);
    expect(row.rows[0]).toEqual({ usage: (3n * cost).toString(), reserved: '0', key_reserved: '0', charges: (3n * cost).toString(), entries: '3', held: null });
  });
});
