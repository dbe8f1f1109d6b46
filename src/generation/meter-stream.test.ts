import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../billing/ledger.js';
import { buildCatalog } from '../catalog/catalog.js';
import { systemClock } from '../core/clock.js';
import { createId } from '../core/ids.js';
import type { StreamPart } from '../core/stream-part.js';
import { EndpointHealth } from '../routing/endpoint-health.js';
import type { Candidate } from '../catalog/candidate.js';
import { createStore, migrateToLatest, type Store } from '../store/create-store.js';
import { creditAccount, findAccount, insertAccount } from '../store/repositories/accounts.js';
import { buildTestConfig } from '../../test/helpers/test-config.js';
import { PaidCall } from '../billing/paid-call.js';
import type { Settlement } from '../billing/settlement.js';
import { meterStream } from './meter-stream.js';

const catalog = buildCatalog(buildTestConfig());
const model = catalog.modelById.get('acme/chat-small')!;
const candidate: Candidate = { model, endpoint: model.endpoints[0], provider: catalog.providerById.get('sim')!, healthKey: 'sim\u0000chat-small' };

describe('meterStream', () => {
  let store: Store;
  let ledger: Ledger;
  const accountId = 'acc_meter';
  beforeAll(async () => {
    store = await createStore('sqlite::memory:');
    await migrateToLatest(store);
    await insertAccount(store.db, { id: accountId, name: 'm', createdAt: new Date().toISOString() });
    await creditAccount(store.db, { ledgerId: 'led_1', accountId, amount: 1_000_000_000n, note: null, createdAt: new Date().toISOString() });
    ledger = new Ledger({ store, clock: systemClock, createId }, { instanceId: 'ins_test', instanceTimeoutMs: 1000 });
  });
  afterAll(async () => store?.close());

  async function* provider(parts: StreamPart[], closed: { value: boolean }): AsyncGenerator<StreamPart> {
    try {
      yield* parts;
    } finally {
      closed.value = true;
    }
  }

  function setup(parts: StreamPart[]) {
    const settlements: Settlement[] = [];
    const closed = { value: false };
    return ledger.reserve({ accountId, keyId: null, requestId: createId('req'), amount: 1_000_000n }).then((reservation) => ({
      settlements,
      closed,
      metered: meterStream(
        provider(parts, closed),
        new PaidCall(reservation, {
          ledger,
          candidate,
          health: () => new EndpointHealth({ failureThreshold: 5, coolDownMs: 1000 }).begin(candidate.healthKey),
          record: {
            settlementRow: (_candidate, settlement) => {
              settlements.push(settlement);
              return undefined;
            },
          },
        }),
        async () => 12,
      ),
    }));
  }

  it('prices the finish part and settles once with the reported usage', async () => {
    const { metered, settlements } = await setup([
      { type: 'start' },
      { type: 'text-delta', text: 'hi' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 100, completionTokens: 50 } },
    ]);
    const seen: StreamPart[] = [];
    for await (const part of metered.parts) seen.push(part);
    await metered.close();
    const finish = seen.at(-1) as Extract<StreamPart, { type: 'finish' }>;
    // 100 × 0.15 + 50 × 0.60 USD per 1M tokens = 0.000045 USD = 45,000 nano-USD.
    expect(finish.cost).toBe(45_000n);
    expect(settlements).toEqual([{ usage: { promptTokens: 100, completionTokens: 50 }, cost: 45_000n, status: 'completed', errorCode: undefined }]);
  });

  it('settles a stream that was never read (client gone before the first frame) and closes the provider', async () => {
    const before = (await findAccount(store.db, accountId))!;
    const { metered, settlements, closed } = await setup([{ type: 'start' }, { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } }]);
    const iterator = metered.parts[Symbol.asyncIterator]();
    expect(iterator).toBeDefined();
    await metered.close();
    await metered.close();
    expect(settlements).toHaveLength(1);
    expect(settlements[0]).toMatchObject({ status: 'aborted', errorCode: 'client_closed' });
    const after = (await findAccount(store.db, accountId))!;
    expect(after.reserved).toBe(before.reserved);
    expect(after.totalUsage - before.totalUsage).toBe(settlements[0].cost);
    expect(closed.value).toBe(false);
  });

  it('charges what was delivered when the consumer stops early', async () => {
    const { metered, settlements, closed } = await setup([
      { type: 'start' },
      { type: 'text-delta', text: 'one two three' },
      { type: 'text-delta', text: 'four' },
      { type: 'finish', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } },
    ]);
    for await (const part of metered.parts) if (part.type === 'text-delta') break;
    await metered.close();
    expect(settlements).toHaveLength(1);
    expect(settlements[0].status).toBe('aborted');
    // The prompt as the tokenizer counts it; 'one two three' is three o200k tokens.
    expect(settlements[0].usage).toMatchObject({ promptTokens: 12, completionTokens: 3, estimated: true });
    expect(closed.value).toBe(true);
  });
});
