import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheConfig } from '../../src/config/types.js';
import { DatabaseCacheBackend } from '../../src/cache/response-cache.js';
import { writeCacheEntry } from '../../src/cache/db/response-cache-entries.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * The response cache (contract §9) over real HTTP with the official SDKs, the simulator as the
 * provider, on each backend: the database (SQLite; PostgreSQL with TEST_DATABASE_URL) and Redis
 * (TEST_REDIS_URL).
 */
const backends: Array<{ name: string; databaseUrl: string; redisUrl?: string }> = testDatabases().map((database) => ({ name: database.name, databaseUrl: database.url }));
if (process.env.TEST_REDIS_URL) backends.push({ name: 'redis', databaseUrl: 'sqlite::memory:', redisUrl: process.env.TEST_REDIS_URL });
else process.stdout.write('Redis response-cache tests SKIPPED: set TEST_REDIS_URL=redis://… to run them\n');

const on = { headers: { 'x-switchyard-cache': 'on' } };

interface Row {
  cost: bigint;
  cacheHit: boolean;
  status: string;
}

async function start(backend: (typeof backends)[number], cache: Partial<CacheConfig>, clock = new ManualClock(Date.now())): Promise<SimulatedGateway & { clock: ManualClock }> {
  const gateway = await startSimulatedGateway({
    databaseUrl: backend.databaseUrl,
    redisUrl: backend.redisUrl,
    clock,
    configure: (config) => {
      config.cache = { enabled: true, defaultTtlSeconds: 300, maxTtlSeconds: 3600, maxEntryBytes: 1024 * 1024, priceFactorMillionths: 500_000, ...cache };
    },
  });
  return Object.assign(gateway, { clock });
}

async function rowOf(gateway: SimulatedGateway, id: string | null): Promise<Row> {
  await gateway.test.context.requestLog.flush();
  const row = await gateway.test.context.store.db.selectFrom('requests').select(['cost', 'cache_hit', 'status']).where('id', '=', id!).executeTakeFirstOrThrow();
  return { cost: BigInt(row.cost), cacheHit: Number(row.cache_hit) === 1, status: row.status };
}

/** Writes to the cache are not awaited by the request: wait until the entry is readable. */
async function settleWrites(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const upstreamCalls = (gateway: SimulatedGateway) => gateway.simulator.stats().requests;

for (const backend of backends) {
  describe(`response cache on ${backend.name}`, () => {
    let gateway: SimulatedGateway & { clock: ManualClock };
    let openai: OpenAI;

    beforeAll(async () => {
      gateway = await start(backend, {});
      openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(async () => gateway?.close());

    it('answers the same chat completion twice with one upstream call, the second a hit charged price_factor × the stored cost', async () => {
      const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: json' }], max_tokens: 50 };
      const before = upstreamCalls(gateway);
      const first = await openai.chat.completions.create(body, on).withResponse();
      expect(first.response.headers.get('x-switchyard-cache')).toBe('miss');
      await settleWrites();
      gateway.clock.advance(7_000);
      // The same body with its keys in another order is the same entry.
      const reordered = { max_tokens: 50, messages: body.messages, model: body.model };
      const second = await openai.chat.completions.create(reordered, on).withResponse();
      expect(upstreamCalls(gateway) - before).toBe(1);
      expect(second.response.headers.get('x-switchyard-cache')).toBe('hit');
      expect(Number(second.response.headers.get('age'))).toBe(7);
      expect(second.data.choices[0].message).toEqual(first.data.choices[0].message);
      expect(second.data.choices[0].finish_reason).toBe(first.data.choices[0].finish_reason);
      // The usage's tokens are the stored answer's; its `cost` is what this request was charged.
      expect({ ...second.data.usage, cost: undefined }).toEqual({ ...first.data.usage, cost: undefined });

      const stored = await rowOf(gateway, first.response.headers.get('x-request-id'));
      const hit = await rowOf(gateway, second.response.headers.get('x-request-id'));
      expect(stored).toMatchObject({ cacheHit: false, status: 'completed' });
      expect(stored.cost).toBeGreaterThan(0n);
      expect(hit).toEqual({ cost: stored.cost / 2n, cacheHit: true, status: 'completed' });
      const api = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${second.response.headers.get('x-request-id')}`)).json()) as { data: { cache_hit: boolean } };
      expect(api.data.cache_hit).toBe(true);
    });

    it('replays a stored stream as the style\'s events when the request streams, identical in content', async () => {
      const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: stream' }], stream: true as const };
      const read = async () => {
        const { data, response } = await openai.chat.completions.create(body, on).withResponse();
        let text = '';
        let finish: string | null = null;
        for await (const chunk of data) {
          text += chunk.choices[0]?.delta?.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        return { text, finish, response };
      };
      const before = upstreamCalls(gateway);
      const first = await read();
      await settleWrites();
      const second = await read();
      expect(upstreamCalls(gateway) - before).toBe(1);
      expect(second.response.headers.get('x-switchyard-cache')).toBe('hit');
      expect(second.response.headers.get('age')).not.toBeNull();
      expect(first.text.length).toBeGreaterThan(0);
      expect(second.text).toBe(first.text);
      expect(second.finish).toBe(first.finish);
      // The stored stream answers a JSON request too: `stream` is not part of the key.
      const { stream: _stream, ...plain } = body;
      const json = await openai.chat.completions.create(plain, on).withResponse();
      expect(json.response.headers.get('x-switchyard-cache')).toBe('hit');
      expect(json.data.choices[0].message.content).toBe(first.text);
      expect(upstreamCalls(gateway) - before).toBe(1);
      const stored = await rowOf(gateway, first.response.headers.get('x-request-id'));
      expect(await rowOf(gateway, second.response.headers.get('x-request-id'))).toEqual({ cost: stored.cost / 2n, cacheHit: true, status: 'completed' });
    });

    it('is off unless the request asks, and never serves another account', async () => {
      const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: scope' }] };
      const before = upstreamCalls(gateway);
      await openai.chat.completions.create(body, on);
      await settleWrites();
      const without = await openai.chat.completions.create(body).withResponse();
      expect(without.response.headers.get('x-switchyard-cache')).toBeNull();
      const other = await gateway.test.createAccount({ credits: 10 });
      const otherClient = new OpenAI({ apiKey: other.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const theirs = await otherClient.chat.completions.create(body, on).withResponse();
      expect(theirs.response.headers.get('x-switchyard-cache')).toBe('miss');
      expect(await rowOf(gateway, theirs.response.headers.get('x-request-id'))).toMatchObject({ cacheHit: false });
      expect(upstreamCalls(gateway) - before).toBe(3);
      // `off` overrides a key that caches everything.
      const keyed = (await (await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'cached', cache: true })).json()) as { key: string; data: { cache: boolean } };
      expect(keyed.data.cache).toBe(true);
      const keyClient = new OpenAI({ apiKey: keyed.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const byKey = await keyClient.chat.completions.create(body).withResponse();
      expect(byKey.response.headers.get('x-switchyard-cache')).toBe('hit');
      const off = await keyClient.chat.completions.create(body, { headers: { 'x-switchyard-cache': 'off' } }).withResponse();
      expect(off.response.headers.get('x-switchyard-cache')).toBeNull();
      expect(upstreamCalls(gateway) - before).toBe(4);
    });

    it('lets an entry live x-switchyard-cache-ttl seconds, and refuses a lifetime above max_ttl_s with a 400 naming the header', async () => {
      const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: ttl' }] };
      const ttl = { headers: { 'x-switchyard-cache': 'on', 'x-switchyard-cache-ttl': '60' } };
      const before = upstreamCalls(gateway);
      await openai.chat.completions.create(body, ttl);
      await settleWrites();
      gateway.clock.advance(59_000);
      expect((await openai.chat.completions.create(body, on).withResponse()).response.headers.get('x-switchyard-cache')).toBe('hit');
      gateway.clock.advance(2_000);
      expect((await openai.chat.completions.create(body, on).withResponse()).response.headers.get('x-switchyard-cache')).toBe('miss');
      expect(upstreamCalls(gateway) - before).toBe(2);

      const refused = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', body, { 'x-switchyard-cache': 'on', 'x-switchyard-cache-ttl': '3601' });
      expect(refused.status).toBe(400);
      const error = ((await refused.json()) as { error: { code: string; message: string; param?: string } }).error;
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('x-switchyard-cache-ttl');
      expect(error.message).toContain('3600');
      const nonsense = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', body, { 'x-switchyard-cache': 'maybe' });
      expect(nonsense.status).toBe(400);
    });

    it('answers Anthropic SDK messages from the cache, as JSON and as a stream', async () => {
      const anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0, defaultHeaders: { 'x-switchyard-cache': 'on' } });
      const body = { model: 'sim/anthropic-model', max_tokens: 64, messages: [{ role: 'user' as const, content: 'cache me: messages' }] };
      const before = upstreamCalls(gateway);
      const first = await anthropic.messages.create(body).withResponse();
      expect(first.response.headers.get('x-switchyard-cache')).toBe('miss');
      await settleWrites();
      const second = await anthropic.messages.create(body).withResponse();
      expect(second.response.headers.get('x-switchyard-cache')).toBe('hit');
      expect(second.data.content).toEqual(first.data.content);
      expect(second.data.stop_reason).toBe(first.data.stop_reason);
      const streamed = anthropic.messages.stream(body);
      const message = await streamed.finalMessage();
      expect(message.content).toEqual(first.data.content);
      expect(message.stop_reason).toBe(first.data.stop_reason);
      expect(upstreamCalls(gateway) - before).toBe(1);
    });

    it.runIf(backend.redisUrl === undefined)('sweeps expired rows out of the database in batches, leaving live ones', async () => {
      const { store, clock, logger } = gateway.test.context;
      const now = clock.now().getTime();
      for (let index = 0; index < 1200; index += 1) await writeCacheEntry(store.db, { key: `sweep-${index}`, accountId: 'acc_x', text: '{}', storedAt: now - 10_000, expiresAt: now - 1 });
      await writeCacheEntry(store.db, { key: 'sweep-live', accountId: 'acc_x', text: '{}', storedAt: now, expiresAt: now + 60_000 });
      const swept = await new DatabaseCacheBackend({ store, clock, logger }).sweepOnce();
      expect(swept).toBeGreaterThanOrEqual(1200);
      const left = await store.db.selectFrom('response_cache').select('key').where('key', 'like', 'sweep-%').execute();
      expect(left.map((row) => row.key)).toEqual(['sweep-live']);
    });

    it('does not store an answer larger than max_entry_bytes', async () => {
      const small = await start(backend, { maxEntryBytes: 64 });
      try {
        const client = new OpenAI({ apiKey: small.key, baseURL: `${small.url}/v1`, maxRetries: 0 });
        const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: too large' }] };
        await client.chat.completions.create(body, on);
        await settleWrites();
        const again = await client.chat.completions.create(body, on).withResponse();
        expect(again.response.headers.get('x-switchyard-cache')).toBe('miss');
        expect(upstreamCalls(small)).toBe(2);
      } finally {
        await small.close();
      }
    });

    it('shows the hits and what they saved in /usage', async () => {
      await gateway.test.context.responseCache!.flushSavings();
      const usage = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/usage')).json()) as { data: { cache: { hits: number; savings: number; by_day: Array<{ day: string; hits: number; savings: number }> } } };
      // The hits of the tests above: chat JSON 1, stream 2, key 1, ttl 1, messages 2.
      expect(usage.data.cache.hits).toBe(7);
      expect(usage.data.cache.savings).toBeGreaterThan(0);
      expect(usage.data.cache.by_day.reduce((sum, day) => sum + day.hits, 0)).toBe(7);
    });
  });
}

describe('response cache with price_factor 0', () => {
  let gateway: SimulatedGateway & { clock: ManualClock };
  beforeAll(async () => {
    gateway = await start(backends[0], { priceFactorMillionths: 0 });
  });
  afterAll(async () => gateway?.close());

  it('charges a hit nothing and still writes its request-log row', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: free' }] };
    const first = await openai.chat.completions.create(body, on).withResponse();
    await settleWrites();
    const spent = (await readAccountMoney(gateway)).usage;
    const second = await openai.chat.completions.create(body, on).withResponse();
    expect(second.response.headers.get('x-switchyard-cache')).toBe('hit');
    expect(await rowOf(gateway, second.response.headers.get('x-request-id'))).toEqual({ cost: 0n, cacheHit: true, status: 'completed' });
    expect((await readAccountMoney(gateway)).usage).toBe(spent);
    const stored = await rowOf(gateway, first.response.headers.get('x-request-id'));
    await gateway.test.context.responseCache!.flushSavings();
    const usage = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/usage')).json()) as { data: { cache: { hits: number; savings: number } } };
    expect(usage.data.cache).toMatchObject({ hits: 1, savings: Number(stored.cost) / 1e9 });
  });

  it('lets concurrent identical first requests both call the provider (no single-flight), and the next one hit', async () => {
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const body = { model: 'sim/openai-model', messages: [{ role: 'user' as const, content: 'cache me: together' }] };
    const before = upstreamCalls(gateway);
    const both = await Promise.all([openai.chat.completions.create(body, on).withResponse(), openai.chat.completions.create(body, on).withResponse()]);
    expect(both.map((answer) => answer.response.headers.get('x-switchyard-cache'))).toEqual(['miss', 'miss']);
    expect(both[1].data.choices[0].message.content).toBe(both[0].data.choices[0].message.content);
    expect(upstreamCalls(gateway) - before).toBe(2);
    await settleWrites();
    const third = await openai.chat.completions.create(body, on).withResponse();
    expect(third.response.headers.get('x-switchyard-cache')).toBe('hit');
    expect(upstreamCalls(gateway) - before).toBe(2);
  });
});
