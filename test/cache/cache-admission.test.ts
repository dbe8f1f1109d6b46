import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * A response-cache hit goes through the same admission as a live request (issue 51): the key's
 * max prices (routing), requests per minute and the free models' daily limit refuse a request the
 * cache could answer exactly as they refuse one it could not, and a refused request neither counts
 * as a hit nor adds to the savings. SQLite, the simulator as the provider, over HTTP.
 */
const on = { 'x-switchyard-cache': 'on' };

interface Answer {
  status: number;
  cache: string | null;
  requestId: string | null;
  error?: { code: string; message: string; metadata?: Record<string, unknown> };
}

async function chat(gateway: SimulatedGateway, key: string, content: string, model = 'sim/openai-model'): Promise<Answer> {
  const response = await sendJson(gateway, key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content }], max_tokens: 20 }, on);
  const body = (await response.json()) as { error?: Answer['error'] };
  // Each request's error names its own request id; the rest is compared.
  if (body.error?.metadata) delete body.error.metadata.request_id;
  return { status: response.status, cache: response.headers.get('x-switchyard-cache'), requestId: response.headers.get('x-request-id'), error: body.error };
}

async function createKey(gateway: SimulatedGateway, body: Record<string, unknown>): Promise<string> {
  const response = await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'limited', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

/** Writes to the cache are not awaited by the request: wait until the entry is readable. */
async function settleWrites(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('a response-cache hit is admitted as a live request', () => {
  const clock = new ManualClock(Date.parse('2026-12-08T12:00:10.000Z'));
  let gateway: SimulatedGateway;

  /** The account's cache hits so far: request-log rows with `cache_hit`, and `/usage`'s count. */
  async function hits(): Promise<{ rows: number; usage: number }> {
    await gateway.test.context.requestLog.flush();
    await gateway.test.context.responseCache!.flushSavings();
    const rows = await gateway.test.context.store.db.selectFrom('requests').select('id').where('account_id', '=', gateway.accountId).where('cache_hit', '=', 1 as never).execute();
    const usage = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/usage')).json()) as { data: { cache: { hits: number } } };
    return { rows: rows.length, usage: usage.data.cache.hits };
  }

  /** Stores an answer for `content` with the account's unlimited key, and checks that it is served. */
  async function stored(content: string, model?: string): Promise<void> {
    expect((await chat(gateway, gateway.key, content, model)).cache).toBe('miss');
    await settleWrites();
  }

  beforeAll(async () => {
    gateway = await startSimulatedGateway({
      clock,
      configure: (config) => {
        config.cache = { enabled: true, defaultTtlSeconds: 300, maxTtlSeconds: 3600, maxEntryBytes: 1024 * 1024, priceFactorMillionths: 500_000 };
        config.limits.freeDailyRequests = 3;
      },
    });
  });
  afterAll(async () => gateway?.close());

  it('refuses a key over its requests per minute with the live 429 on a would-be hit, and counts no hit', async () => {
    await stored('admission: rpm');
    const key = await createKey(gateway, { requests_per_minute: 2 });
    const upstream = gateway.simulator.stats().requests;
    const before = await hits();
    // A normal hit still works, and counts toward the key's minute like a live request.
    const hit = await chat(gateway, key, 'admission: rpm');
    expect(hit).toMatchObject({ status: 200, cache: 'hit' });
    expect((await chat(gateway, key, 'admission: rpm, live')).status).toBe(200);
    const refusedHit = await chat(gateway, key, 'admission: rpm');
    const refusedLive = await chat(gateway, key, 'admission: rpm, never stored');
    expect(refusedHit.status).toBe(429);
    expect(refusedHit.cache).toBeNull();
    expect(refusedHit.error).toMatchObject({ code: 'rate_limited', metadata: { limit_type: 'requests_per_minute' } });
    expect(refusedLive.status).toBe(429);
    expect(refusedHit.error).toEqual(refusedLive.error);
    // One hit (the first), one provider call (the live one), nothing for the refusals.
    expect(gateway.simulator.stats().requests - upstream).toBe(1);
    const after = await hits();
    expect(after.rows - before.rows).toBe(1);
    expect(after.usage - before.usage).toBe(1);
  });

  it("refuses a key whose max price is below the model's price with the live 503 on a would-be hit", async () => {
    await stored('admission: max price');
    // sim/openai-model costs 1 and 2 USD per 1M tokens.
    const key = await createKey(gateway, { max_price: { prompt: 0.5, completion: 0.5 } });
    const upstream = gateway.simulator.stats().requests;
    const before = await hits();
    const refusedHit = await chat(gateway, key, 'admission: max price');
    const refusedLive = await chat(gateway, key, 'admission: max price, never stored');
    expect(refusedHit.status).toBe(503);
    expect(refusedHit.error).toMatchObject({ code: 'no_available_provider', metadata: { reason: 'key_max_price' } });
    expect(refusedHit.error).toEqual(refusedLive.error);
    expect(gateway.simulator.stats().requests).toBe(upstream);
    expect(await hits()).toEqual(before);
    // A key whose max price admits the model gets the hit.
    const admitted = await createKey(gateway, { max_price: { prompt: 1, completion: 2 } });
    expect(await chat(gateway, admitted, 'admission: max price')).toMatchObject({ status: 200, cache: 'hit' });
  });

  it("refuses a free model past the account's daily limit with the live 429 on a would-be hit", async () => {
    await gateway.test.app.inject({
      method: 'PUT',
      url: `/admin/accounts/${gateway.accountId}/messenger`,
      headers: { authorization: `Bearer ${gateway.test.adminToken}` },
      payload: { linked: true },
    });
    const free = 'sim/free-model:free';
    // The daily limit is 3: the stored request is the first, two hits the second and third.
    await stored('admission: free', free);
    expect(await chat(gateway, gateway.key, 'admission: free', free)).toMatchObject({ status: 200, cache: 'hit' });
    expect(await chat(gateway, gateway.key, 'admission: free', free)).toMatchObject({ status: 200, cache: 'hit' });
    const upstream = gateway.simulator.stats().requests;
    const before = await hits();
    const refusedHit = await chat(gateway, gateway.key, 'admission: free', free);
    const refusedLive = await chat(gateway, gateway.key, 'admission: free, never stored', free);
    expect(refusedHit.status).toBe(429);
    expect(refusedHit.error).toMatchObject({ code: 'rate_limited', metadata: { limit_type: 'free_models_daily_requests' } });
    expect(refusedHit.error).toEqual(refusedLive.error);
    expect(gateway.simulator.stats().requests).toBe(upstream);
    expect(await hits()).toEqual(before);
  });
});
