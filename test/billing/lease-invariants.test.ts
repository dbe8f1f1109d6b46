import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/create-account.js';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { Ledger, type Reservation } from '../../src/billing/ledger.js';
import { systemClock } from '../../src/core/clock.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { createId } from '../../src/core/ids.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { backdateHeartbeat } from '../helpers/backdate-heartbeat.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * The lease invariants of docs/leases.md, on two ledgers (two instances) sharing one real
 * database (PostgreSQL, and SQLite, where leases are on by default too): reservations that race
 * each other and their leases' top-ups never take the balance or the key's limit below zero,
 * never hand out more than a lease row holds, and leave the books exact once settled and returned.
 */
const leases = { maxGrantNano: 1_000_000_000n, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000 };

for (const database of testDatabases()) describe(`lease invariants on ${database.name}`, () => {
  let test: TestStore;
  const context = () => ({ store: test.store, clock: systemClock, createId });
  beforeAll(async () => {
    test = await openTestStore(database);
  });
  afterAll(async () => test?.close());

  async function money(accountId: string, keyId: string) {
    // PostgreSQL answers these as text, SQLite as bigint: both convert exactly.
    const row = await sql<{ free: string | bigint; reserved: string | bigint; usage: string | bigint; key_free: string | bigint; held: string | bigint | null; leases: string | bigint }>`
      select a.total_credits - a.total_usage - a.reserved as free, a.reserved as reserved, a.total_usage as usage,
        k.spend_limit - k.usage - k.reserved as key_free,
        (select sum(amount) from reservations where account_id = a.id) as held,
        (select count(*) from reservations where account_id = a.id and id like 'lse%') as leases
      from accounts a join api_keys k on k.account_id = a.id where a.id = ${accountId} and k.id = ${keyId}`.execute(test.store.db);
    const [one] = row.rows;
    return { free: BigInt(one.free), reserved: BigInt(one.reserved), usage: BigInt(one.usage), keyFree: BigInt(one.key_free), held: BigInt(one.held ?? 0), leases: Number(one.leases) };
  }

  /** An account with funds for 10,000 reservations of `amount`, and a key limited to 100,000 of them. */
  async function accountWithKey(name: string, amount: bigint) {
    const { account } = await createAccount(context(), { credits: 10_000n * amount });
    const { record: key } = await createApiKey(test.store.db, context(), { accountId: account.id, name, management: false, spendLimit: 100_000n * amount });
    return { account, key };
  }

  const amount = 1_000_000n;

  /**
   * A started instance with leases, on `on` (by default this file's context: the system clock), and an account
   * and key of its own (`accountWithKey`); `reserve` asks it for one `amount`.
   */
  async function leasingInstance(name: string, instanceTimeoutMs: number, on = context()) {
    const { account, key } = await accountWithKey(name, amount);
    const ledger = new Ledger(on, { instanceId: createId('ins'), instanceTimeoutMs, leases });
    await ledger.startInstance();
    const reserve = () => ledger.reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount });
    return { account, key, ledger, reserve };
  }

  /** Nothing reserved or held on the account any more, and no lease row left. */
  async function expectNothingHeld(account: { id: string }, key: { id: string }) {
    expect(await money(account.id, key.id)).toMatchObject({ reserved: 0n, held: 0n, leases: 0 });
  }

  /**
   * A third party's transaction holding the account's row (PostgreSQL): `untilBlocking` resolves
   * once another session waits on it; `commit` lets that one go on.
   */
  async function holdAccountRow(accountId: string) {
    const holder = await test.store.pool!.connect();
    await holder.query('begin');
    await holder.query('select 1 from accounts where id = $1 for update', [accountId]);
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
    const blocking = async () => (await test.store.pool!.query('select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [holderPid])).rows.length > 0;
    return {
      async untilBlocking() {
        for (let attempt = 0; attempt < 200 && !(await blocking()); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await blocking()).toBe(true);
      },
      commit: () => holder.query('commit'),
      release: () => holder.release(),
    };
  }

  /** Another instance, sweeping once `silent` has not beaten for an hour (its row says so). */
  const sweepAfterSilenceOf = async (silent: Ledger) => {
    await backdateHeartbeat(test.store.db, silent.options.instanceId, 3_600_000);
    return new Ledger(context(), { instanceId: createId('ins'), instanceTimeoutMs: 3_000 }).sweep();
  };
  /** A ledger of its own on a clock `offsetMs` off the others'. */
  const skewedContext = (offsetMs: number) => ({ store: test.store, clock: { now: () => new Date(Date.now() + offsetMs) }, createId });

  it('racing reservations on two instances: never below zero, never more than the lease rows hold, one lease per instance, books exact', async () => {
    // The key's limit binds before the balance does: 300 reservations' worth.
    const { account } = await createAccount(context(), { credits: 1_000n * amount });
    const { record: key } = await createApiKey(test.store.db, context(), { accountId: account.id, name: 'limited', management: false, spendLimit: 300n * amount });
    const ledgers = ['ins_a', 'ins_b'].map((instanceId) => new Ledger(context(), { instanceId: `${instanceId}_${createId('t')}`, instanceTimeoutMs: 60_000, leases }));
    for (const ledger of ledgers) await ledger.startInstance();
    const held: Reservation[] = [];
    let refused = 0;
    // Waves of concurrent reservations, each checked against the rows while they are held.
    for (let wave = 0; wave < 8; wave += 1) {
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          ledgers[index % 2].reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount }).catch((error: unknown) => {
            if (error instanceof GatewayError && error.code === 'insufficient_balance') return undefined;
            throw error;
          }),
        ),
      );
      for (const outcome of outcomes) {
        if (outcome) held.push(outcome);
        else refused += 1;
      }
      const now = await money(account.id, key.id);
      expect(now.free).toBeGreaterThanOrEqual(0n);
      expect(now.keyFree).toBeGreaterThanOrEqual(0n);
      expect(now.held).toBe(now.reserved);
      // What the requests hold out of each lease never exceeds that lease's row.
      const rows = await test.store.db.selectFrom('reservations').select(['id', 'amount']).where('account_id', '=', account.id).execute();
      const byLease = new Map<string, bigint>();
      for (const reservation of held) if (reservation.leaseId) byLease.set(reservation.leaseId, (byLease.get(reservation.leaseId) ?? 0n) + reservation.amount);
      for (const [leaseId, sum] of byLease) expect(BigInt(rows.find((row) => row.id === leaseId)?.amount ?? -1n)).toBeGreaterThanOrEqual(sum);
      expect(now.leases).toBeLessThanOrEqual(2);
    }
    expect(held.length).toBe(300);
    expect(refused).toBe(8 * 60 - 300);
    expect(held.filter((reservation) => reservation.leaseId !== undefined).length).toBeGreaterThan(100);
    // Half fail (released), half settle at their amount.
    await Promise.all(held.map((reservation, index) => (index % 2 === 0 ? ledgers[0].settle(reservation, amount) : ledgers[0].release(reservation))));
    for (const ledger of ledgers) await ledger.returnLeases();
    const after = await money(account.id, key.id);
    expect(after).toMatchObject({ reserved: 0n, held: 0n, usage: 150n * amount, leases: 0 });
  });

  it('a lease unused past the idle time gives back its unused part while requests are in flight, and its row once none is', async () => {
    const clock = new ManualClock(Date.now());
    const { account, key, ledger, reserve } = await leasingInstance('idle', 60_000, { store: test.store, clock, createId });
    const first = await reserve();
    const second = await reserve();
    expect(first.leaseId).toBeDefined();
    expect((await money(account.id, key.id)).reserved).toBeGreaterThan(2n * amount);
    clock.advance(leases.idleMs + 1);
    await ledger.returnIdleLeases();
    // Two requests in flight: the row keeps exactly what they hold.
    expect(await money(account.id, key.id)).toMatchObject({ reserved: 2n * amount, held: 2n * amount, leases: 1 });
    await ledger.settle(first, amount);
    await ledger.release(second);
    await ledger.returnIdleLeases();
    expect(await money(account.id, key.id)).toMatchObject({ reserved: 0n, held: 0n, usage: amount, leases: 0 });
  });

  it('a lease in steady use past the two-hour reservation lifetime is not expired by the sweep while its instance beats: its row always holds what its requests hold, books exact', async () => {
    const clock = new ManualClock(Date.now());
    const { account, key, ledger, reserve } = await leasingInstance('long-lived', 60_000, { store: test.store, clock, createId });
    const other = new Ledger({ store: test.store, clock, createId }, { instanceId: createId('ins'), instanceTimeoutMs: 60_000 });
    await other.startInstance();
    // A request every 20 s (never idle) for two hours and ten minutes, each settled; the upkeep of
    // `serve` runs between them on both instances (heartbeat, sweep, idle leases). One grant
    // (1,000 requests' worth) covers all 391, so the lease row is never grown (nor its lifetime renewed).
    let leaseId: string | undefined;
    for (let step = 0; step <= 390; step += 1) {
      clock.advance(20_000);
      for (const instance of [ledger, other]) {
        expect(await instance.heartbeat()).toBe(true);
        await instance.sweep();
        await instance.returnIdleLeases();
      }
      const held = await reserve();
      leaseId ??= held.leaseId;
      expect(held.leaseId).toBe(leaseId);
      const row = await test.store.db.selectFrom('reservations').select('amount').where('id', '=', leaseId!).executeTakeFirst();
      expect(BigInt(row?.amount ?? -1n)).toBeGreaterThanOrEqual(amount);
      await ledger.settle(held, amount);
    }
    await ledger.returnLeases();
    await other.stopInstance();
    expect(await money(account.id, key.id)).toMatchObject({ reserved: 0n, held: 0n, usage: 391n * amount, leases: 0 });
  });

  it('an instance whose last committed heartbeat is older than two thirds of the instance timeout reserves the exact way, and leases again once it beats', async () => {
    const clock = new ManualClock(Date.now());
    const { account, key, ledger, reserve } = await leasingInstance('silent', 3_000, { store: test.store, clock, createId });
    const first = await reserve();
    expect(first.leaseId).toBeDefined();
    // No beat committed for 2 s of a 3 s timeout: another instance may sweep this one's lease in
    // the next second, so nothing more is handed out of it.
    clock.advance(2_001);
    const silent = await reserve();
    expect(silent.leaseId).toBeUndefined();
    expect(await test.store.db.selectFrom('reservations').select('id').where('id', '=', silent.id).execute()).toHaveLength(1);
    expect(await ledger.heartbeat()).toBe(true);
    const after = await reserve();
    expect(after.leaseId).toBe(first.leaseId);
    for (const reservation of [first, silent, after]) await ledger.release(reservation);
    await ledger.returnLeases();
    await expectNothingHeld(account, key);
  });

  it.skipIf(database.name !== 'postgres')('a beat that lands while another instance sweeps this one finds it declared dead (its row goes before its lease is released)', async () => {
    const { account, key, ledger, reserve } = await leasingInstance('swept', 3_000);
    const first = await reserve();
    expect(first.leaseId).toBeDefined();
    await ledger.release(first);
    // Another instance sweeps this one while a third party holds the account's row: its release
    // of the lease waits on that lock, and this instance beats meanwhile.
    const holder = await holdAccountRow(account.id);
    try {
      const sweep = sweepAfterSilenceOf(ledger);
      await holder.untilBlocking();
      const beat = ledger.heartbeat();
      // The beat touches only the instance row: it is answered while the lock is held.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await holder.commit();
      expect(await sweep).toBe(1);
      expect(await beat).toBe(false);
    } finally {
      holder.release();
    }
    expect(ledger.fenced).toBe(1);
    // Registered again: a new lease, the released one never handed out again.
    const second = await reserve();
    expect(second.leaseId).toBeDefined();
    expect(second.leaseId).not.toBe(first.leaseId);
    await ledger.release(second);
    await ledger.returnLeases();
    await expectNothingHeld(account, key);
  });

  it.skipIf(database.name !== 'postgres')('a grant that commits after its instance was declared dead and forgot its leases gives its row back at once', async () => {
    const { account, key, ledger, reserve } = await leasingInstance('late grant', 3_000);
    // The lease's opening grant waits on the account's row, held by a third party, while the
    // instance is swept, beats (finds itself declared dead, forgets its leases) and registers again.
    const holder = await holdAccountRow(account.id);
    let reserving: Promise<Reservation>;
    try {
      reserving = reserve();
      await holder.untilBlocking();
      await sweepAfterSilenceOf(ledger);
      expect(await ledger.heartbeat()).toBe(false);
      await holder.commit();
    } finally {
      holder.release();
    }
    // Its grant committed for a lease nobody holds any more: the request went the exact way, and
    // the row the grant inserted is given back rather than held until the lease's lifetime ends.
    const reservation = await reserving;
    expect(reservation.leaseId).toBeUndefined();
    for (let attempt = 0; attempt < 100 && (await money(account.id, key.id)).leases > 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await money(account.id, key.id)).toMatchObject({ reserved: amount, held: amount, leases: 0 });
    await ledger.release(reservation);
    await ledger.returnLeases();
    await expectNothingHeld(account, key);
  });

  it.skipIf(database.name !== 'postgres')('clocks three hours apart, beyond the two-hour reservation lifetime: a sweeper ahead neither takes a live instance for dead nor expires its lease, nor does anyone an instance behind (beats stamped and judged by the database clock; reservations expired only by their own instance)', async () => {
    // A live instance whose clock is three hours behind, beating as it should.
    const skewMs = 3 * 60 * 60 * 1000;
    const { account, key, ledger: behind, reserve } = await leasingInstance('skewed', 3_000, skewedContext(-skewMs));
    const held = await reserve();
    expect(held.leaseId).toBeDefined();
    expect(await behind.heartbeat()).toBe(true);
    // Sweepers three hours ahead and on the true time find it alive and its lease not expired: its row stays held.
    for (const offsetMs of [skewMs, 0]) {
      expect(await new Ledger(skewedContext(offsetMs), { instanceId: createId('ins'), instanceTimeoutMs: 3_000 }).sweep()).toBe(0);
    }
    expect(await behind.heartbeat()).toBe(true);
    expect(behind.fenced).toBe(0);
    expect((await money(account.id, key.id)).leases).toBe(1);
    // Its lease still serves, and the books come out exact.
    const next = await reserve();
    expect(next.leaseId).toBe(held.leaseId);
    for (const reservation of [held, next]) await behind.release(reservation);
    await behind.returnLeases();
    await expectNothingHeld(account, key);
  });

  it('shutdown with a grant in flight: the grant ends first and its row goes back too (none left held by a stopped instance)', async () => {
    const { account, key, ledger, reserve } = await leasingInstance('closing', 60_000);
    // The first reservation opens a lease: its grant is on its way to the database when the
    // instance stops (returnLeases is what shutdown runs once the books are flushed).
    const reserving = reserve();
    await ledger.returnLeases();
    const reservation = await reserving;
    // Stopped leases serve nothing: it went the exact way, a row of its own.
    expect(reservation.leaseId).toBeUndefined();
    await ledger.release(reservation);
    await expectNothingHeld(account, key);
  });
});
