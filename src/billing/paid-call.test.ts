import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../catalog/catalog.js';
import { systemClock } from '../core/clock.js';
import { createId } from '../core/ids.js';
import type { Candidate } from '../catalog/candidate.js';
import { createStore, migrateToLatest, type Store } from '../store/create-store.js';
import { creditAccount, findAccount, insertAccount } from '../store/repositories/accounts.js';
import { buildTestConfig } from '../../test/helpers/test-config.js';
import { Ledger } from './ledger.js';
import { PaidCall } from './paid-call.js';
import type { Settlement } from './settlement.js';

const catalog = buildCatalog(buildTestConfig());
const model = catalog.modelById.get('acme/chat-small')!;
const candidate: Candidate = { model, endpoint: model.endpoints[0], provider: catalog.providerById.get('sim')!, healthKey: 'sim\u0000chat-small' };

describe('PaidCall', () => {
  let store: Store;
  let ledger: Ledger;
  const accountId = 'acc_paid_call';
  beforeAll(async () => {
    store = await createStore('sqlite::memory:');
    await migrateToLatest(store);
    await insertAccount(store.db, { id: accountId, name: 'p', createdAt: new Date().toISOString() });
    await creditAccount(store.db, { ledgerId: 'led_1', accountId, amount: 1_000_000_000n, note: null, createdAt: new Date().toISOString() });
    ledger = new Ledger({ store, clock: systemClock, createId }, { instanceId: 'ins_test', instanceTimeoutMs: 1000 });
  });
  afterAll(async () => store?.close());

  const account = async () => (await findAccount(store.db, accountId))!;
  function open(settlements: Settlement[], omitted?: readonly string[]) {
    const record = { settlementRow: (_candidate: Candidate, settlement: Settlement) => void settlements.push(settlement) };
    return PaidCall.reserve(ledger, { accountId, keyId: null, requestId: createId('req'), amount: 1_000_000n }, { candidate, record, omitted });
  }

  it('settles once: prices the usage by the text rule, asks for the row with what was left out, charges it and releases the rest', async () => {
    const before = await account();
    const settlements: Settlement[] = [];
    const call = await open(settlements, ['reasoning.effort']);
    expect((await account()).reserved - before.reserved).toBe(1_000_000n);
    // 100 × 0.15 + 50 × 0.60 USD per 1M tokens = 45,000 nano-USD.
    expect(await call.settle({ promptTokens: 100, completionTokens: 50 }, 'completed')).toBe(45_000n);
    expect(call.settled).toBe(true);
    expect(settlements).toEqual([{ usage: { promptTokens: 100, completionTokens: 50 }, cost: 45_000n, status: 'completed', omitted: ['reasoning.effort'] }]);
    const after = await account();
    expect(after.reserved).toBe(before.reserved);
    expect(after.totalUsage - before.totalUsage).toBe(45_000n);
  });

  it('takes the caller’s price when its own rule made it (n images, the hosted loop’s turns)', async () => {
    const settlements: Settlement[] = [];
    const call = await open(settlements);
    expect(await call.settle({ promptTokens: 0, completionTokens: 0 }, 'failed', { cost: 0n, errorCode: 'upstream_error' })).toBe(0n);
    expect(settlements[0]).toMatchObject({ cost: 0n, status: 'failed', errorCode: 'upstream_error' });
    expect(settlements[0].omitted).toBeUndefined();
  });

  it('aborts by releasing the whole reservation once, and never after a hand-off to a task', async () => {
    const before = await account();
    const aborted = await open([]);
    await aborted.abort(new Error('provider down'));
    await aborted.abort(new Error('again'));
    expect((await account()).reserved).toBe(before.reserved);

    const handed = await open([]);
    expect(handed.handOff()).toBe(handed.reservation);
    await handed.abort(new Error('after the task took it'));
    // The task holds it now: still reserved, to be settled by the task engine.
    expect((await account()).reserved - before.reserved).toBe(1_000_000n);
    expect((await account()).totalUsage).toBe(before.totalUsage);
  });
});
