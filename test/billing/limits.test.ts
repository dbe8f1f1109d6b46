import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

class TestClock implements Clock {
  constructor(public current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
}

const freeRequest = { model: 'sim/free-model:free', messages: [{ role: 'user', content: 'hi' }] };

async function post(gateway: SimulatedGateway, key: string, body: unknown) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function linkMessenger(gateway: SimulatedGateway, accountId: string) {
  await gateway.test.app.inject({
    method: 'PUT',
    url: `/admin/accounts/${accountId}/messenger`,
    headers: { authorization: `Bearer ${gateway.test.adminToken}` },
    payload: { linked: true },
  });
}

describe('free models', () => {
  const clock = new TestClock(new Date('2026-11-21T23:59:00.000Z'));
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ clock, credits: 0 });
  });
  afterAll(async () => gateway?.close());

  it('needs a linked messenger account: 403 messenger_link_required, no provider call', async () => {
    const response = await post(gateway, gateway.key, freeRequest);
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'messenger_link_required', status: 403 });
    expect(gateway.simulator.stats().requests).toBe(0);
  });

  it('serves a linked account with no credits, charging nothing', async () => {
    await linkMessenger(gateway, gateway.accountId);
    const response = await post(gateway, gateway.key, freeRequest);
    expect(response.status).toBe(200);
    expect(response.body.usage.cost).toBe(0);
  });

  it('stops at the daily limit with 429, limit_type and Retry-After to midnight UTC, and resets at 00:00 UTC', async () => {
    // The test catalog allows 5 a day; one was used above.
    for (let index = 0; index < 4; index += 1) expect((await post(gateway, gateway.key, freeRequest)).status).toBe(200);
    const before = gateway.simulator.stats().requests;
    const limited = await post(gateway, gateway.key, freeRequest);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', status: 429, metadata: { limit_type: 'free_models_daily_requests' } });
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(gateway.simulator.stats().requests).toBe(before);

    clock.current = new Date('2026-11-22T00:00:01.000Z');
    expect((await post(gateway, gateway.key, freeRequest)).status).toBe(200);
  });

  it('counts per account', async () => {
    const other = await gateway.test.createAccount();
    await linkMessenger(gateway, other.accountId);
    expect((await post(gateway, other.key, freeRequest)).status).toBe(200);
  });
});

describe('requests per minute on paid models', () => {
  const clock = new TestClock(new Date('2026-11-21T12:00:10.000Z'));
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    gateway = await startSimulatedGateway({ clock, configure: (config) => (config.limits.requestsPerMinute = 3) });
  });
  afterAll(async () => gateway?.close());
  const paid = { model: 'sim/openai-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };

  it('limits each key per minute with 429 requests_per_minute and Retry-After, then lets it through the next minute', async () => {
    for (let index = 0; index < 3; index += 1) expect((await post(gateway, gateway.key, paid)).status).toBe(200);
    const limited = await post(gateway, gateway.key, paid);
    expect(limited.status).toBe(429);
    expect(limited.body.error.metadata.limit_type).toBe('requests_per_minute');
    expect(limited.headers.get('retry-after')).toBe('50');
    clock.current = new Date('2026-11-21T12:01:00.000Z');
    expect((await post(gateway, gateway.key, paid)).status).toBe(200);
  });

  it('takes a per-key override', async () => {
    const created = await fetch(`${gateway.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fast', requests_per_minute: 5 }),
    });
    const { key } = (await created.json()) as any;
    for (let index = 0; index < 5; index += 1) expect((await post(gateway, key, paid)).status).toBe(200);
    expect((await post(gateway, key, paid)).status).toBe(429);
  });
});

describe('when the limit store is down', () => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    // Nothing listens on port 1: every counter command fails at once, as with Redis down.
    gateway = await startSimulatedGateway({ redisUrl: 'redis://127.0.0.1:1', configure: (config) => (config.limits.requestsPerMinute = 10) });
    await linkMessenger(gateway, gateway.accountId);
  });
  afterAll(async () => gateway?.close());

  it('refuses free-model requests with 503 service_unavailable and calls no provider', async () => {
    const response = await post(gateway, gateway.key, freeRequest);
    expect(response.status).toBe(503);
    expect(response.body.error).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(gateway.simulator.stats().requests).toBe(0);
  });

  it('reports not ready', async () => {
    expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(redisUrl)('limits shared through Redis', () => {
  let first: SimulatedGateway;
  let second: SimulatedGateway;
  beforeAll(async () => {
    const databaseUrl = 'sqlite::memory:';
    first = await startSimulatedGateway({ databaseUrl, redisUrl, configure: (config) => (config.limits.requestsPerMinute = 4) });
    second = await startSimulatedGateway({ databaseUrl, redisUrl, configure: (config) => (config.limits.requestsPerMinute = 4) });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('counts one key across two instances', async () => {
    // The two instances have separate SQLite databases; the key's limit lives in Redis under its id.
    const keyId = (await (await fetch(`${first.url}/v1/keys`, { headers: { authorization: `Bearer ${first.key}` } })).json() as any).data[0].id as string;
    const paid = { model: 'sim/openai-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
    const counter = `rpm:${keyId}:${Math.floor(Date.now() / 60_000)}`;
    for (let index = 0; index < 2; index += 1) expect((await post(first, first.key, paid)).status).toBe(200);
    const shared = await second.test.context.counters.increment(counter, 61_000);
    expect(shared).toBe(3);
  });
});
if (!redisUrl) process.stdout.write('Redis tests SKIPPED: set TEST_REDIS_URL=redis://… to run them\n');
