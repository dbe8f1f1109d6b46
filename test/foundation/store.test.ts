import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, type Store } from '../../src/store/create-store.js';
import { creditAccount, findAccount, insertAccount } from '../../src/store/repositories/accounts.js';
import { findActiveKey, findActiveKeyByHash, insertApiKey, listActiveKeys, revokeKey, updateKeyLimits } from '../../src/store/repositories/api-keys.js';
import { findDefaultProvider, upsertDefaultProvider } from '../../src/store/repositories/default-providers.js';
import { deleteMessengerLink, upsertMessengerLink } from '../../src/store/repositories/messenger-links.js';
import { createId } from '../../src/core/ids.js';
import { openTestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

const now = '2026-11-21T12:00:00.000Z';

for (const database of testDatabases()) {
  describe(`store on ${database.name}`, () => {
    let store: Store;
    let closeStore: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ store, close: closeStore } = await openTestStore(database));
    });
    afterAll(async () => {
      await closeStore?.();
    });

    it('migrates idempotently and creates every table', async () => {
      await migrateToLatest(store);
      for (const table of ['accounts', 'api_keys', 'ledger_entries', 'reservations', 'requests', 'usage_rollups', 'default_providers', 'messenger_links', 'tasks'] as const) {
        const result = await sql<{ count: number | bigint }>`select count(*) as count from ${sql.table(table)}`.execute(store.db);
        expect(Number(result.rows[0].count)).toBeGreaterThanOrEqual(0);
      }
      expect(await store.ping()).toBe(true);
    });

    it('keeps money exact beyond 2^53 nano-USD', async () => {
      const id = createId('acc');
      await insertAccount(store.db, { id, name: 'rich', createdAt: now });
      const huge = 9_007_199_254_740_993n; // 2^53 + 1: not representable as a double
      await store.db.transaction().execute((trx) => creditAccount(trx, { ledgerId: createId('led'), accountId: id, amount: huge, note: null, createdAt: now }));
      await store.db.transaction().execute((trx) => creditAccount(trx, { ledgerId: createId('led'), accountId: id, amount: 1n, note: null, createdAt: now }));
      const account = await findAccount(store.db, id);
      expect(account?.totalCredits).toBe(huge + 1n);
      expect(typeof account?.totalCredits).toBe('bigint');
      const ledger = await store.db.selectFrom('ledger_entries').select(['amount']).where('account_id', '=', id).orderBy('id').execute();
      expect(ledger.map((row) => BigInt(row.amount))).toEqual([huge, 1n]);
    });

    it('stores keys by hash, with limits, price caps and revocation', async () => {
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: 'keys', createdAt: now });
      const keyId = createId('key');
      await insertApiKey(store.db, {
        id: keyId,
        accountId,
        name: 'k',
        label: 'sy_abc…wxyz',
        hash: `hash-${keyId}`,
        management: false,
        createdAt: now,
        spendLimit: 5_000_000_000n,
        maxPrice: { prompt: 1_000_000_000n, completion: null },
        modelMaxPrices: { 'a/b': { prompt: null, completion: 2n } },
        requestsPerMinute: 60,
      });
      const found = await findActiveKeyByHash(store.db, `hash-${keyId}`);
      expect(found).toMatchObject({
        id: keyId,
        accountId,
        management: false,
        spendLimit: 5_000_000_000n,
        usage: 0n,
        maxPrice: { prompt: 1_000_000_000n, completion: null },
        modelMaxPrices: { 'a/b': { prompt: null, completion: 2n } },
        requestsPerMinute: 60,
      });
      expect(await updateKeyLimits(store.db, accountId, keyId, { spendLimit: null, maxPrice: null })).toBe(true);
      expect(await findActiveKey(store.db, accountId, keyId)).toMatchObject({ spendLimit: null, maxPrice: null });
      expect(await updateKeyLimits(store.db, 'acc_other', keyId, { spendLimit: 1n })).toBe(false);
      expect(await listActiveKeys(store.db, accountId, { limit: 10 })).toHaveLength(1);
      expect(await revokeKey(store.db, 'acc_other', keyId, now)).toBeUndefined();
      expect(await revokeKey(store.db, accountId, keyId, now)).toBe(`hash-${keyId}`);
      expect(await findActiveKeyByHash(store.db, `hash-${keyId}`)).toBeUndefined();
      expect(await listActiveKeys(store.db, accountId, { limit: 10 })).toHaveLength(0);
      expect(await revokeKey(store.db, accountId, keyId, now)).toBeUndefined();
    });

    it('refuses two keys with the same hash', async () => {
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: 'dup', createdAt: now });
      const base = { accountId, name: 'k', label: 'l', hash: `same-${accountId}`, management: false, createdAt: now, spendLimit: null, maxPrice: null, modelMaxPrices: {}, requestsPerMinute: null };
      await insertApiKey(store.db, { ...base, id: createId('key') });
      await expect(insertApiKey(store.db, { ...base, id: createId('key') })).rejects.toThrow();
    });

    it('upserts default providers and messenger links', async () => {
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: 'prefs', createdAt: now });
      await upsertDefaultProvider(store.db, { accountId, model: 'a/b', provider: 'x', updatedAt: now });
      await upsertDefaultProvider(store.db, { accountId, model: 'a/b', provider: 'y', updatedAt: now });
      expect(await findDefaultProvider(store.db, accountId, 'a/b')).toBe('y');
      await upsertMessengerLink(store.db, { accountId, messenger: 'telegram', externalId: '42', linkedAt: now });
      await upsertMessengerLink(store.db, { accountId, messenger: 'admin', externalId: null, linkedAt: now });
      expect((await findAccount(store.db, accountId))?.messengerLinked).toBe(true);
      await deleteMessengerLink(store.db, accountId);
      expect((await findAccount(store.db, accountId))?.messengerLinked).toBe(false);
    });

    it('keeps concurrent credits exact (no lost update)', async () => {
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: 'race', createdAt: now });
      await Promise.all(
        Array.from({ length: 40 }, () =>
          store.db.transaction().execute((trx) => creditAccount(trx, { ledgerId: createId('led'), accountId, amount: 7n, note: null, createdAt: now })),
        ),
      );
      expect((await findAccount(store.db, accountId))?.totalCredits).toBe(280n);
    });
  });
}
