import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reserveOnce } from '../../src/billing/reserve-funds.js';
import { writeBooks } from '../../src/billing/write-books.js';
import type { Store } from '../../src/store/create-store.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';

/**
 * Issue 17: every transaction that touches account and key rows locks them in one global order
 * (accounts by id, then keys by id), so no two can each hold a row the other waits for. Shown
 * statement by statement, deterministically: a hand-opened transaction holds one row; the
 * writer under test, given its rows in the most unfavourable order, must then be waiting for
 * that row while holding only rows that sort before it (probed with NOWAIT from a third
 * session). And a deadlock forced by a writer that breaks the order (the hand transaction) is
 * retried by the store before its caller hears of it.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

// Keys belong to accounts in the opposite order, and both are inserted in reverse, so that
// neither the arrival order, the key's account nor the physical order is the id order.
const accounts = ['acc_1', 'acc_2', 'acc_3', 'acc_4'];
const keys = ['key_1', 'key_2', 'key_3', 'key_4'];
const accountOfKey = (key: string) => `acc_${5 - Number(key.slice(4))}`;
/** The global lock order: accounts by id, then keys by id. */
const globalOrder = [...accounts.map((id) => `accounts:${id}`), ...keys.map((id) => `api_keys:${id}`)];

describe.skipIf(!postgresUrl)('lock order of the money path on PostgreSQL', () => {
  let test: TestStore;
  let store: Store;
  let schema: string;
  const sessions: pg.Client[] = [];
  const session = async () => {
    const client = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
    await client.connect();
    sessions.push(client);
    return client;
  };

  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
    store = test.store;
    schema = store.schema!;
    for (const id of [...accounts].reverse()) {
      await store.db.insertInto('accounts').values({ id, name: id, created_at: '2026-11-25T00:00:00.000Z', total_credits: 10n ** 12n, total_usage: 0n, reserved: 0n }).execute();
    }
    for (const id of [...keys].reverse()) {
      await store.db
        .insertInto('api_keys')
        .values({ id, account_id: accountOfKey(id), name: id, label: id, hash: `hash-${id}`, management: 0, created_at: '2026-11-25T00:00:00.000Z', spend_limit: 10n ** 12n, usage: 0n, reserved: 0n, model_max_prices: '{}' })
        .execute();
    }
  });
  // Each test starts from no session, no reservation and untouched funds, whatever the last one left.
  afterEach(async () => {
    for (const client of sessions.splice(0)) await client.end().catch(() => undefined);
    await store.pool!.query('delete from reservations');
    await store.pool!.query('update accounts set reserved = 0, total_usage = 0');
    await store.pool!.query('update api_keys set reserved = 0, usage = 0');
  });
  afterAll(async () => test?.close());

  /** The rows another transaction holds now, in the global order (NOWAIT probes, each rolled back). */
  async function heldRows(): Promise<string[]> {
    const probe = await session();
    const held: string[] = [];
    try {
      for (const row of globalOrder) {
        const [table, id] = row.split(':');
        await probe.query('begin');
        try {
          await probe.query(`select 1 from ${table} where id = $1 for no key update nowait`, [id]);
        } catch (error) {
          if ((error as { code?: string }).code !== '55P03') throw error;
          held.push(row);
        } finally {
          await probe.query('rollback');
        }
      }
    } finally {
      await probe.end();
      sessions.splice(sessions.indexOf(probe), 1);
    }
    return held;
  }

  /** Resolves once some session waits for a lock that `holder` holds. */
  async function waitUntilBlockedBy(holder: pg.Client): Promise<void> {
    const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const blocked = await holder.query('select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid]);
      if (blocked.rowCount! > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('nothing waited for the held row');
  }

  /** Reservations for every key, in the most unfavourable order: accounts and keys descending, interleaved. */
  const reservationBatch = (tag: string) =>
    [...keys].reverse().map((key, index) => ({ id: `rsv_${tag}_${index}`, account: accountOfKey(key), key, amount: 1_000n + BigInt(index) }));

  async function callReserveMany(client: pg.Client, batch: ReturnType<typeof reservationBatch>): Promise<string[]> {
    const now = new Date().toISOString();
    const result = await client.query<{ outcomes: string[] }>('select switchyard_reserve_many($1, $2, $3, $4, $5::bigint[], $6, $7, $8) as outcomes', [
      batch.map((one) => one.id),
      batch.map((one) => one.account),
      batch.map((one) => one.key),
      batch.map((one) => `req_${one.id}`),
      batch.map((one) => one.amount.toString()),
      batch.map(() => now),
      batch.map(() => new Date(Date.now() + 60_000).toISOString()),
      batch.map(() => null),
    ]);
    return result.rows[0].outcomes;
  }

  for (const heldRow of ['accounts:acc_2', 'api_keys:key_2']) {
    it(`the reservation function, blocked on ${heldRow}, holds only rows that sort before it; the holder then takes the rest without a deadlock`, async () => {
      const [table, id] = heldRow.split(':');
      const holder = await session();
      const caller = await session();
      await holder.query('begin');
      await holder.query(`select 1 from ${table} where id = $1 for no key update`, [id]);
      const reserving = callReserveMany(caller, reservationBatch(`r${table}`));
      await waitUntilBlockedBy(holder);
      // Held now: the rows before the held one (the caller's) and the held one (the holder's).
      // The old function (arrival order, account and key interleaved) held acc_4 and key_1 and
      // waited for acc_3 … out of order.
      expect(await heldRows()).toEqual(globalOrder.slice(0, globalOrder.indexOf(heldRow) + 1));
      // The holder goes on in the global order: every later row is free, so no deadlock.
      for (const row of globalOrder.slice(globalOrder.indexOf(heldRow) + 1)) {
        const [laterTable, laterId] = row.split(':');
        await holder.query(`select 1 from ${laterTable} where id = $1 for no key update nowait`, [laterId]);
      }
      await holder.query('commit');
      expect(await reserving).toEqual(['reserved', 'reserved', 'reserved', 'reserved']);
    });
  }

  it('the settlement batch, blocked on a key, holds every account and only the keys before it', async () => {
    const caller = await session();
    const batch = reservationBatch('settle');
    expect(await callReserveMany(caller, batch)).toEqual(['reserved', 'reserved', 'reserved', 'reserved']);
    const holder = await session();
    await holder.query('begin');
    await holder.query('select 1 from api_keys where id = $1 for no key update', ['key_3']);
    const settling = writeBooks(store, {
      items: batch.map((one) => ({ settlement: { reservationId: one.id, accountId: one.account, keyId: one.key, requestId: `req_${one.id}`, cost: 700n } })),
      createdAt: new Date().toISOString(),
      ledgerId: (() => {
        let next = 0;
        return () => `led_settle_${(next += 1)}`;
      })(),
    });
    await waitUntilBlockedBy(holder);
    expect(await heldRows()).toEqual(['accounts:acc_1', 'accounts:acc_2', 'accounts:acc_3', 'accounts:acc_4', 'api_keys:key_1', 'api_keys:key_2', 'api_keys:key_3']);
    await holder.query('select 1 from api_keys where id = $1 for no key update nowait', ['key_4']);
    await holder.query('commit');
    const outcomes = await settling;
    expect(outcomes.map((outcome) => outcome.charged)).toEqual([700n, 700n, 700n, 700n]);
    const funds = await store.pool!.query<{ reserved: string; used: string }>(
      `select (select sum(reserved) from accounts)::text as reserved, (select sum(total_usage) from accounts)::text as used`,
    );
    expect(funds.rows[0]).toEqual({ reserved: '0', used: '2800' });
  });

  /**
   * A writer that breaks the order (the holder: key first, then its account) against the store's
   * own call: PostgreSQL finds the cycle in the session that waited first, the store's, rolls
   * that transaction back, and the store runs it again once the holder is through.
   */
  async function forceDeadlock(run: () => Promise<unknown>): Promise<unknown> {
    const holder = await session();
    await holder.query('begin');
    await holder.query(`select 1 from api_keys where id = 'key_4' for no key update`);
    const running = run();
    await waitUntilBlockedBy(holder);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The store's transaction holds acc_1 and waits for key_4; this closes the cycle. It returns
    // only once the store's transaction was rolled back (the deadlock's victim).
    await holder.query(`update accounts set name = name where id = 'acc_1'`);
    await holder.query('commit');
    return running;
  }

  it('a reservation batch that loses a deadlock is sent again before its callers hear of it', async () => {
    const outcome = await forceDeadlock(() =>
      reserveOnce(store, { id: 'rsv_deadlock', accountId: 'acc_1', keyId: 'key_4', requestId: 'req_deadlock', amount: 5_000n, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), instanceId: null }),
    );
    expect(outcome).toBe('reserved');
    const row = await store.pool!.query<{ amount: string }>(`select amount::text from reservations where id = 'rsv_deadlock'`);
    expect(row.rows).toEqual([{ amount: '5000' }]);
  }, 20_000);

  it('a settlement batch that loses a deadlock is written again before its settlement hears of it', async () => {
    const caller = await session();
    expect(await callReserveMany(caller, [{ id: 'rsv_deadlock', account: 'acc_1', key: 'key_4', amount: 5_000n }])).toEqual(['reserved']);
    const outcomes = await forceDeadlock(() =>
      writeBooks(store, {
        items: [{ settlement: { reservationId: 'rsv_deadlock', accountId: 'acc_1', keyId: 'key_4', requestId: 'req_deadlock', cost: 4_000n } }],
        createdAt: new Date().toISOString(),
        ledgerId: () => `led_deadlock_${Math.random().toString(36).slice(2)}`,
      }),
    );
    expect(outcomes).toEqual([{ charged: 4_000n, uncollected: 0n, applied: true }]);
    const account = await store.pool!.query<{ reserved: string; used: string }>(`select reserved::text, total_usage::text as used from accounts where id = 'acc_1'`);
    expect(account.rows).toEqual([{ reserved: '0', used: '4000' }]);
  }, 20_000);
});
