import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/create-account.js';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { systemClock } from '../../src/core/clock.js';
import { createId } from '../../src/core/ids.js';
import { reserveOnce, type ReservationInput } from '../../src/billing/reserve-funds.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

const context = (store: TestStore['store']) => ({ store, clock: systemClock, createId });

function reservation(accountId: string, keyId: string | null, amount: bigint): ReservationInput {
  const now = new Date();
  return {
    id: createId('res'),
    accountId,
    keyId,
    requestId: createId('req'),
    amount,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 60_000).toISOString(),
    instanceId: null,
  };
}

// The reservations of concurrent requests share database calls (group commit) and are still
// decided one by one, in order: never more reserved than the funds or the key's limit allow.
for (const database of testDatabases()) {
  describe(`reservations asked for together on ${database.name}`, () => {
    let test: TestStore;
    beforeAll(async () => {
      test = await openTestStore(database);
    });
    afterAll(async () => test?.close());

    it('100 at once against funds for 37: exactly 37 reserved, the rest refused, in fewer calls than reservations', async () => {
      const { account } = await createAccount(context(test.store), { credits: 37_000n });
      let calls = 0;
      const pool = test.store.pool;
      const query = pool?.query.bind(pool);
      if (pool && query) {
        pool.query = ((...args: Parameters<typeof query>) => {
          calls += 1;
          return query(...args);
        }) as typeof pool.query;
      }
      try {
        const outcomes = await Promise.all(Array.from({ length: 100 }, () => reserveOnce(test.store, reservation(account.id, null, 1_000n))));
        expect(outcomes.filter((outcome) => outcome === 'reserved')).toHaveLength(37);
        expect(outcomes.filter((outcome) => outcome === 'insufficient_balance')).toHaveLength(63);
        // First come, first served: the first 37 asked are the 37 reserved.
        expect(outcomes.slice(0, 37).every((outcome) => outcome === 'reserved')).toBe(true);
        if (pool) expect(calls).toBeLessThan(10);
      } finally {
        if (pool && query) pool.query = query as typeof pool.query;
      }
      const row = await test.store.db.selectFrom('accounts').select('reserved').where('id', '=', account.id).executeTakeFirstOrThrow();
      expect(BigInt(row.reserved)).toBe(37_000n);
      const open = await test.store.db.selectFrom('reservations').select('id').where('account_id', '=', account.id).execute();
      expect(open).toHaveLength(37);
    });

    it("a key's limit refuses within the same batch and gives the account's part back", async () => {
      const { account } = await createAccount(context(test.store), { credits: 100_000n });
      const key = await createApiKey(test.store.db, context(test.store), { accountId: account.id, name: 'capped', management: false, spendLimit: 5_000n });
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => reserveOnce(test.store, reservation(account.id, key.record.id, 1_000n))));
      expect(outcomes.filter((outcome) => outcome === 'reserved')).toHaveLength(5);
      expect(outcomes.filter((outcome) => outcome === 'key_limit')).toHaveLength(15);
      const row = await test.store.db.selectFrom('accounts').select('reserved').where('id', '=', account.id).executeTakeFirstOrThrow();
      expect(BigInt(row.reserved)).toBe(5_000n);
      const keyRow = await test.store.db.selectFrom('api_keys').select('reserved').where('id', '=', key.record.id).executeTakeFirstOrThrow();
      expect(BigInt(keyRow.reserved)).toBe(5_000n);
    });
  });
}
