import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/create-account.js';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { Ledger } from '../../src/billing/ledger.js';
import { LeaseSignals } from '../../src/billing/lease-signals.js';
import { systemClock } from '../../src/core/clock.js';
import { createId } from '../../src/core/ids.js';
import { updateKeyLimits } from '../../src/store/repositories/api-keys.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';

/**
 * The bound of docs/leases.md, "Limit changes", on a real PostgreSQL: an instance's leases serve
 * only while its last probe came back within `boundMs`; a key change committed by any
 * connection reaches its leases through the database's notification; and when its listening
 * connection is cut, every lease is recalled before leases serve again.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL lease signal tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

const leases = { maxGrantNano: 1_000_000_000n, shareDivisor: 8n, minRequests: 16n, exactForMs: 2_000, idleMs: 30_000 };
const amount = 1_000_000n;

describe.skipIf(!postgresUrl)('lease signals (PostgreSQL)', () => {
  let test: TestStore;
  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
  });
  afterAll(async () => test?.close());

  /** A started instance with leases and signals, whose monotonic clock the test moves (`elapse`). */
  async function signalledInstance() {
    const context = { store: test.store, clock: systemClock, createId };
    const { account } = await createAccount(context, { credits: 10_000n * amount });
    const { record: key } = await createApiKey(test.store.db, context, { accountId: account.id, name: 'worker', management: false, spendLimit: 1_000n * amount });
    let offsetMs = 0;
    const instanceId = createId('ins');
    const signals = new LeaseSignals(test.store.pool!, { instanceId, boundMs: 2_000, reclaimWaitMs: 500, logger: pino({ level: 'silent' }), now: () => performance.now() + offsetMs });
    const ledger = new Ledger(context, { instanceId, instanceTimeoutMs: 60_000, leases, signals });
    await ledger.startInstance();
    await signals.start({ keyChanged: (keyId) => ledger.recallKey(keyId), giveBackSpare: (accountId) => ledger.giveBackSpare(accountId), recallAll: () => ledger.recallLeases() });
    const reserve = (size = amount) => ledger.reserve({ accountId: account.id, keyId: key.id, requestId: createId('req'), amount: size });
    const leaseRows = () => test.store.db.selectFrom('reservations').select(['id', 'amount']).where('key_id', '=', key.id).whereRef('id', '=', 'request_id').execute();
    return { account, key, ledger, signals, instanceId, reserve, leaseRows, elapse: (ms: number) => (offsetMs += ms) };
  }

  /** Polls `check` every 10 ms for up to 10 s (the machine is shared); the time it took. */
  async function until(check: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > 10_000) throw new Error('condition not reached in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return performance.now() - started;
  }

  it('serves out of a lease only while its last probe came back within the bound', async () => {
    const instance = await signalledInstance();
    try {
      expect(instance.signals.confirmed()).toBe(true);
      expect((await instance.reserve()).leaseId).toBeDefined();
      // The probe sent last is now older than the bound: the exact way, until one comes back.
      instance.elapse(2_000);
      expect((await instance.reserve()).leaseId).toBeUndefined();
      await until(async () => instance.signals.confirmed());
      expect((await instance.reserve()).leaseId).toBeDefined();
    } finally {
      await instance.ledger.stopInstance();
    }
  }, 60_000);

  it('a limit lowered by another connection recalls the key’s lease; the next reservation is checked against the new limit', async () => {
    const instance = await signalledInstance();
    try {
      const first = await instance.reserve();
      expect(first.leaseId).toBeDefined();
      await instance.ledger.release(first);
      expect((await instance.leaseRows())[0].amount).toBeGreaterThan(0n);
      // As the admin CLI or another instance would: only the database tells this one.
      await updateKeyLimits(test.store.db, instance.account.id, instance.key.id, { spendLimit: amount / 2n });
      await until(async () => (await instance.leaseRows()).length === 0);
      await expect(instance.reserve()).rejects.toMatchObject({ code: 'insufficient_balance', metadata: { limit_type: 'key_limit' } });
      expect((await instance.reserve(amount / 2n)).leaseId).toBeUndefined();
    } finally {
      await instance.ledger.stopInstance();
    }
  }, 60_000);

  it('a cut listening connection: every lease is recalled before leases serve again', async () => {
    const instance = await signalledInstance();
    try {
      const first = await instance.reserve();
      expect(first.leaseId).toBeDefined();
      await instance.ledger.release(first);
      const [row] = await instance.leaseRows();
      await test.store.pool!.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`switchyard-lease-signals ${instance.instanceId}`]);
      // Notifications sent while it was cut are lost: its lease went back whole once it listened again.
      await until(async () => (await instance.leaseRows()).every((lease) => lease.id !== row.id));
      await until(async () => instance.signals.confirmed());
      const again = await instance.reserve();
      expect(again.leaseId).toBeDefined();
      expect(again.leaseId).not.toBe(row.id);
    } finally {
      await instance.ledger.stopInstance();
    }
  }, 60_000);
});
