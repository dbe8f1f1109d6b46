import { afterAll, describe, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/create-store.js';
import { burst } from '../helpers/fixed-cost-load.js';
import { chat, createKey, keyUsage, patchLimit, prepareLeaseRecall, readBooksAndExact, readCredits } from '../helpers/lease-recall-load.js';
import { killSpawnedServers, spawnServer } from '../helpers/spawn-server.js';

/**
 * Issue 45, items 2 and 3, on one `switchyard serve` over SQLite, leases on (the default;
 * docs/leases.md, "Limit changes" and "Reclaiming spare"). The three-instance PostgreSQL
 * variants are in lease-recall-postgres.test.ts.
 */
afterAll(killSpawnedServers);

async function start(credits: string) {
  const prepared = await prepareLeaseRecall('sqlite:{dir}/recall.db');
  const account = prepared.createAccount(credits);
  const store = await createStore(prepared.env.DATABASE_URL);
  const server = await spawnServer(prepared.env);
  const stop = async () => {
    if (server.child.exitCode === null) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
  };
  const close = async () => {
    await stop();
    await store.close();
    await prepared.simulator.close();
  };
  /** SIGTERM (the lease goes back), then the books. */
  const stopAndReadBooks = async () => {
    await stop();
    return readBooksAndExact(store, account.data.id);
  };
  return { store, url: server.url, managementKey: account.key, stopAndReadBooks, close };
}

async function leased(store: Store, keyId: string): Promise<bigint> {
  const rows = await store.db.selectFrom('reservations').select('amount').where('key_id', '=', keyId).whereRef('id', '=', 'request_id').execute();
  return rows.reduce((sum, row) => sum + BigInt(row.amount), 0n);
}

describe('lease recall on SQLite (issue 45)', () => {
  it('a lowered key limit takes the key’s lease back at once: the next requests are refused, none is served free', async () => {
    const setup = await start('5');
    try {
      const worker = await createKey(setup.url, setup.managementKey, 1);
      expect((await burst([setup.url], worker.key, 3, 4)).every((status) => status === 200)).toBe(true);
      expect(await leased(setup.store, worker.id)).toBeGreaterThan(10_000_000n);
      const usage = await keyUsage(setup.url, setup.managementKey, worker.id);
      const patched = await patchLimit(setup.url, setup.managementKey, worker.id, usage + 0.0005);
      expect(patched.body.data.limit_remaining).toBeCloseTo(0.0005, 9);
      expect(await leased(setup.store, worker.id)).toBe(0n);
      const after = await Promise.all(Array.from({ length: 5 }, () => chat(setup.url, worker.key, 10)));
      expect(after.map((answer) => answer.status)).toEqual([402, 402, 402, 402, 402]);
      expect(after[0].body.error.metadata.limit_type).toBe('key_limit');
      // A smaller request still fits under the limit and is charged in full.
      const small = await chat(setup.url, worker.key, 5);
      expect(small.status).toBe(200);
      expect(small.body.usage.cost).toBeCloseTo(0.0005, 9);
      expect(await keyUsage(setup.url, setup.managementKey, worker.id)).toBeCloseTo(usage + 0.0005, 9);
      const { books, exact } = await setup.stopAndReadBooks();
      expect(books).toMatchObject(exact);
    } finally {
      await setup.close();
    }
  }, 400_000);

  it('a request the balance covers is served although another key’s lease held part of it', async () => {
    const setup = await start('4.5');
    try {
      const worker = await createKey(setup.url, setup.managementKey, null);
      expect((await burst([setup.url], worker.key, 10, 4)).every((status) => status === 200)).toBe(true);
      expect(await leased(setup.store, worker.id)).toBeGreaterThan(400_000_000n);
      expect((await readCredits(setup.url, setup.managementKey)).body.data.balance).toBeCloseTo(4.49, 9);
      // 4 USD at most, on a balance of 4.49 of which the worker's lease held about 0.56.
      const big = await chat(setup.url, setup.managementKey, 40_000);
      expect(big.status).toBe(200);
      expect((await burst([setup.url], worker.key, 4, 4)).every((status) => status === 200)).toBe(true);
      const { books, exact } = await setup.stopAndReadBooks();
      expect(books).toMatchObject(exact);
    } finally {
      await setup.close();
    }
  }, 400_000);
});
