import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/create-store.js';
import { burst, FIXED_COST } from '../helpers/fixed-cost-load.js';
import { chat, createKey, keyUsage, patchLimit, prepareLeaseRecall, readBooksAndExact, readCredits } from '../helpers/lease-recall-load.js';
import { killSpawnedServers, spawnServer } from '../helpers/spawn-server.js';
import { uniqueSchemaName } from '../helpers/test-databases.js';

/**
 * Issue 45, items 2 and 3, across three real `switchyard serve` processes on one PostgreSQL
 * (docs/leases.md, "Limit changes" and "Reclaiming spare"): a key's lowered limit takes back its
 * leases on every instance, and a request the balance covers is not refused because other keys'
 * leases, on this instance or others, hold part of it.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL lease recall tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');
afterAll(killSpawnedServers);

/** The default bound of a key change on another instance (`SWITCHYARD_LEASE_RECALL_MS`). */
const RECALL_BOUND_MS = 5000;

async function setUp(credits: string) {
  const schema = uniqueSchemaName();
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  const prepared = await prepareLeaseRecall(postgresUrl!, { PGOPTIONS: `-c search_path=${schema}` });
  const store = await createStore(postgresUrl!, { schema });
  const account = prepared.createAccount(credits);
  const instances = await Promise.all([spawnServer(prepared.env), spawnServer(prepared.env), spawnServer(prepared.env)]);
  const close = async () => {
    await Promise.all(instances.map((instance) => stop(instance.child)));
    await store.close();
    await prepared.simulator.close();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  };
  /** SIGTERM to every instance (each gives its leases back), then the books. */
  const stopAndReadBooks = async () => {
    await Promise.all(instances.map((instance) => stop(instance.child)));
    return readBooksAndExact(store, account.data.id);
  };
  return { store, instances, managementKey: account.key, stopAndReadBooks, close };
}

function stop(child: Awaited<ReturnType<typeof spawnServer>>['child']): Promise<unknown> {
  if (child.exitCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

/** What the key's lease rows hold, by instance. */
async function leasedByInstance(store: Store, keyId: string): Promise<Map<string, bigint>> {
  const rows = await store.db.selectFrom('reservations').select(['instance_id', 'amount']).where('key_id', '=', keyId).whereRef('id', '=', 'request_id').execute();
  const held = new Map<string, bigint>();
  for (const row of rows) held.set(row.instance_id!, (held.get(row.instance_id!) ?? 0n) + BigInt(row.amount));
  return held;
}

describe.skipIf(!postgresUrl)('lease recall: three instances on PostgreSQL (issue 45)', () => {
  it('a limit lowered on instance A takes back the key’s leases on A at once and on B and C within the bound; no request after it is served beyond the limit', async () => {
    const setup = await setUp('5');
    try {
      const [a, b, c] = setup.instances;
      const urls = setup.instances.map((instance) => instance.url);
      const worker = await createKey(a.url, setup.managementKey, 1);
      // A's lease first, so that its row can be told apart from the others'.
      expect((await chat(a.url, worker.key, 10)).status).toBe(200);
      const aId = [...(await leasedByInstance(setup.store, worker.id)).keys()][0];
      expect((await burst(urls, worker.key, 30, 4)).every((status) => status === 200)).toBe(true);
      // Each instance holds a lease of the key, well above what one request needs.
      const before = await leasedByInstance(setup.store, worker.id);
      expect(before.size).toBe(3);
      for (const held of before.values()) expect(held).toBeGreaterThan(10_000_000n);

      // The burst's answers come before their charges commit (group commit): the limit is set
      // against the usage once the last of them is in, or a charge landing between the read and
      // the PATCH would leave less than the 0.0005 the refusals below are figured on. Every request
      // costs exactly FIXED_COST, so "all in" is 31 of them — not a quiet spell, which a loaded
      // machine can stretch past any fixed wait between two commits.
      const served = (31n * FIXED_COST) / 1_000n;
      const deadline = Date.now() + 30_000;
      let usage = await keyUsage(a.url, setup.managementKey, worker.id);
      while (Math.round(usage * 1e6) !== Number(served)) {
        if (Date.now() > deadline) throw new Error(`the key's usage stayed at ${usage} USD, not the 31 requests served`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        usage = await keyUsage(a.url, setup.managementKey, worker.id);
      }
      const patched = await patchLimit(a.url, setup.managementKey, worker.id, usage + 0.0005);
      const patchedAt = Date.now();
      expect(patched.status).toBe(200);
      expect(patched.body.data.limit_remaining).toBeCloseTo(0.0005, 9);
      // On the instance that served the change: back before the change was answered.
      expect((await leasedByInstance(setup.store, worker.id)).get(aId) ?? 0n).toBe(0n);
      // On the others: within the bound (they hear of it from the database, normally at once).
      let recalledAfterMs = -1;
      while (Date.now() - patchedAt < 2 * RECALL_BOUND_MS) {
        const held = await leasedByInstance(setup.store, worker.id);
        if ([...held.values()].every((amount) => amount === 0n)) {
          recalledAfterMs = Date.now() - patchedAt;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      process.stdout.write(`lease recall: B's and C's leases of the key given back ${recalledAfterMs} ms after A answered the PATCH\n`);
      expect(recalledAfterMs).toBeGreaterThanOrEqual(0);
      expect(recalledAfterMs).toBeLessThan(RECALL_BOUND_MS);

      // Each request reserves 0.001 USD and 0.0005 is left under the limit: refused everywhere.
      const after = await Promise.all([b, c, b, c, b, c, a].map((instance) => chat(instance.url, worker.key, 10)));
      expect(after.map((answer) => answer.status)).toEqual([402, 402, 402, 402, 402, 402, 402]);
      expect(after[0].body.error.metadata.limit_type).toBe('key_limit');
      expect(await keyUsage(a.url, setup.managementKey, worker.id)).toBeCloseTo(usage, 9);

      const { books, exact } = await setup.stopAndReadBooks();
      expect(books).toMatchObject(exact);
    } finally {
      await setup.close();
    }
  }, 420_000);

  it('a request the balance covers is served although other keys’ leases on this instance and on the two others held part of it', async () => {
    const setup = await setUp('4.5');
    try {
      const [a, b, c] = setup.instances;
      const worker = await createKey(a.url, setup.managementKey, null);
      expect((await burst([a.url, b.url, c.url], worker.key, 30, 4)).every((status) => status === 200)).toBe(true);
      const leased = await leasedByInstance(setup.store, worker.id);
      expect(leased.size).toBe(3);
      for (const held of leased.values()) expect(held).toBeGreaterThan(100_000_000n);
      const credits = await readCredits(a.url, setup.managementKey);
      expect(credits.body.data.balance).toBeCloseTo(4.47, 9);
      // 4 USD at most, on a balance of 4.47 of which the worker's three leases held about 1.5.
      const big = await chat(a.url, setup.managementKey, 40_000);
      expect(big.status).toBe(200);
      // The worker goes on (exactly, or out of new leases once the spare hold is over).
      expect((await burst([b.url, c.url], worker.key, 6, 4)).every((status) => status === 200)).toBe(true);

      const { books, exact } = await setup.stopAndReadBooks();
      expect(books).toMatchObject(exact);
    } finally {
      await setup.close();
    }
  }, 420_000);
});
