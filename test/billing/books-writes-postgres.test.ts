import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveOnce } from '../../src/billing/reserve-funds.js';
import { writeBooks } from '../../src/billing/write-books.js';
import { keyPeriodsDue } from '../../src/billing/roll-key-periods.js';
import type { Store } from '../../src/store/create-store.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { countPoolWrites, countPreparedPlans } from '../helpers/postgres-pool-probes.js';

/**
 * A books batch on PostgreSQL is four messages to the server (`begin`, the statement that takes,
 * the statement that applies, `commit`) but two socket writes: what goes out in one tick leaves
 * together. At low load a batch holds one request, so each write saved is a system call saved
 * per request. Counted on the pooled connection's socket while the batch holds it. The batch's
 * statements run by their generic plan, never planned anew per batch.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

describe.skipIf(!postgresUrl)('PostgreSQL connection work of the money path: socket writes of a books batch, connections opened ahead', () => {
  let test: TestStore;
  let store: Store;

  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
    store = test.store;
    await store.db.insertInto('accounts').values({ id: 'acc_w', name: 'w', created_at: '2026-11-26T00:00:00.000Z', total_credits: 10n ** 12n, total_usage: 0n, reserved: 0n }).execute();
    await store.db
      .insertInto('api_keys')
      .values({ id: 'key_w', account_id: 'acc_w', name: 'w', label: 'w', hash: 'hash-w', management: 0, created_at: '2026-11-26T00:00:00.000Z', spend_limit: null, usage: 0n, reserved: 0n, model_max_prices: '{}' })
      .execute();
  });
  afterAll(() => test?.close());

  it('sends begin with the first statement and the second with commit: two writes, and the books applied', async () => {
    const reserved = await reserveOnce(store, { id: 'rsv_w', accountId: 'acc_w', keyId: 'key_w', requestId: 'req_w', amount: 5_000n, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), instanceId: null });
    expect(reserved).toBe('reserved');
    // The first batch of a UTC day starts the keys' limit periods first (issue 49): counted here
    // is a batch of a day already started, as all but one a day are.
    await keyPeriodsDue(store, new Date());

    const counted = countPoolWrites(store.pool!);
    try {
      const outcomes = await writeBooks(store, {
        items: [{ settlement: { reservationId: 'rsv_w', accountId: 'acc_w', keyId: 'key_w', requestId: 'req_w', cost: 4_000n } }],
        createdAt: new Date().toISOString(),
        ledgerId: () => 'led_w',
      });
      expect(outcomes).toEqual([{ charged: 4_000n, uncollected: 0n, applied: true }]);
    } finally {
      counted.stop();
    }
    expect(counted.writes).toHaveLength(2);
    const account = await store.pool!.query<{ total_usage: string; reserved: string }>(`select total_usage::text, reserved::text from accounts where id = 'acc_w'`);
    expect(account.rows).toEqual([{ total_usage: '4000', reserved: '0' }]);
  });

  it('writes a request row\'s amounts as sent: cost and tool cost beyond 2^53, the search count, the omitted fields', async () => {
    const cost = 2n ** 60n + 7n;
    const row = {
      id: 'req_amounts', accountId: 'acc_w', keyId: 'key_w', model: 'm "quoted" \\ model', provider: 'p', endpoint: '/chat/completions', streamed: false, status: 'completed' as const,
      errorCode: null, latencyMs: 5, promptTokens: 1, completionTokens: 2, cachedTokens: 0, reasoningTokens: 0, cost, estimated: false, createdAt: new Date().toISOString(),
      webSearchRequests: 3, toolCost: 2n ** 55n + 1n, omitted: ['tools[type=web_search]'],
    };
    expect(await writeBooks(store, { items: [{ row }], createdAt: new Date().toISOString(), ledgerId: () => 'led_amounts' })).toEqual([{ charged: 0n, uncollected: 0n, applied: true }]);
    const stored = await store.pool!.query<Record<string, string>>(`select cost::text, tool_cost::text, web_search_requests::text, omitted, model from requests where id = 'req_amounts'`);
    expect(stored.rows).toEqual([{ cost: cost.toString(), tool_cost: (2n ** 55n + 1n).toString(), web_search_requests: '3', omitted: '["tools[type=web_search]"]', model: 'm "quoted" \\ model' }]);
  });

  it('runs the writer\'s statements by their generic plan: no batch plans them anew, however small the first batches were', async () => {
    // Batches of one settlement, one after another: left to choose, PostgreSQL would plan both
    // statements afresh for each of a connection's first five executions, and keep doing so for
    // the one that applies the books (a custom plan of one-element arrays looks cheaper).
    for (let index = 0; index < 8; index += 1) {
      const id = `plan_${index}`;
      const reserved = await reserveOnce(store, { id: `rsv_${id}`, accountId: 'acc_w', keyId: 'key_w', requestId: `req_${id}`, amount: 100n, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), instanceId: null });
      expect(reserved).toBe('reserved');
      const outcomes = await writeBooks(store, {
        items: [{ settlement: { reservationId: `rsv_${id}`, accountId: 'acc_w', keyId: 'key_w', requestId: `req_${id}`, cost: 60n } }],
        createdAt: new Date().toISOString(),
        ledgerId: () => `led_${id}`,
      });
      expect(outcomes).toEqual([{ charged: 60n, uncollected: 0n, applied: true }]);
    }
    const pool = store.pool!;
    const plans = await countPreparedPlans(pool, 'switchyard_take_books_%', 'switchyard_apply_books');
    expect(plans.custom).toBe(0);
    // Both statements of each of the eight batches ran (the two tests above add theirs).
    expect(plans.generic).toBeGreaterThanOrEqual(16);
    // The setting was the transaction's alone: the pool's other statements keep the default.
    expect((await pool.query<{ mode: string }>(`select current_setting('plan_cache_mode') as mode`)).rows[0].mode).toBe('auto');
  });

  it('opens every connection of the pool ahead of the first burst when asked (serve does, with its warm-up)', async () => {
    const pool = store.pool!;
    await store.openConnections();
    expect({ total: pool.totalCount, idle: pool.idleCount }).toEqual({ total: pool.options.max, idle: pool.options.max });
    // A burst as large as the pool finds every connection open: none is started for it.
    let connected = 0;
    const onConnect = () => (connected += 1);
    pool.on('connect', onConnect);
    try {
      await Promise.all(Array.from({ length: pool.options.max }, () => pool.query('select pg_sleep(0.05)')));
    } finally {
      pool.off('connect', onConnect);
    }
    expect(connected).toBe(0);
  });
});
