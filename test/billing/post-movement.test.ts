import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMovement } from '../../src/billing/db/post-movement.js';
import { createId } from '../../src/core/ids.js';
import { findAccount, insertAccount } from '../../src/store/repositories/accounts.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

/** Contract §7: money from outside reaches the ledger once per reference, however often it is posted. */
describe.each(testDatabases())('postMovement on $name', (database) => {
  let opened: TestStore;
  beforeAll(async () => {
    opened = await openTestStore(database);
  });
  afterAll(async () => opened.close());

  async function newAccount(): Promise<string> {
    const id = createId('acc');
    await insertAccount(opened.store.db, { id, name: 'movements', createdAt: new Date().toISOString() });
    return id;
  }

  it('posts the same reference once under 10 concurrent transactions, and one without a reference every time', async () => {
    const accountId = await newAccount();
    const post = (reference: string | null) =>
      opened.store.db.transaction().execute((trx) =>
        postMovement(trx, { id: createId('led'), accountId, kind: 'top_up', amount: 10_000_000_000n, reference, note: null, receiptUrl: 'https://pay.example/r/1', createdAt: new Date().toISOString() }),
      );
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => post('stripe:cs_test_once')));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await post(null)).toBe(true);
    expect(await post(null)).toBe(true);
    const account = await findAccount(opened.store.db, accountId);
    expect(account?.totalCredits).toBe(30_000_000_000n);
    const entries = await opened.store.db.selectFrom('ledger_entries').select(['kind', 'amount', 'receipt_url']).where('account_id', '=', accountId).execute();
    expect(entries).toHaveLength(3);
    expect(entries.every((entry) => entry.kind === 'top_up' && entry.receipt_url === 'https://pay.example/r/1')).toBe(true);
  });

  it('a negative movement takes the credits down, below zero if it must', async () => {
    const accountId = await newAccount();
    await opened.store.db.transaction().execute((trx) =>
      postMovement(trx, { id: createId('led'), accountId, kind: 'refund', amount: -5_000_000_000n, reference: 'stripe:re_1', note: null, createdAt: new Date().toISOString() }),
    );
    expect((await findAccount(opened.store.db, accountId))?.totalCredits).toBe(-5_000_000_000n);
  });
});
