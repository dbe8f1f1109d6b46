import { describe, expect, it } from 'vitest';
import { FIXED_MAX_TOKENS } from '../helpers/fixed-cost-load.js';
import { call, startResetGateways, type ResetGateways } from '../helpers/limit-reset-gateways.js';

/**
 * Issue 49 on one instance over SQLite (leases on, the default), the clock moved by hand: weekly
 * limits reset on Monday and monthly ones on the 1st, not at midnight between; changing or
 * removing a key's reset; the key object's fields; the PATCH's validation. Each request of the
 * fixed-cost model costs 0.001 USD; a limit of 0.003 is worth three.
 */
const COST = 0.001;

async function withGateway(start: string, run: (gateway: ResetGateways, url: string) => Promise<void>): Promise<void> {
  const gateway = await startResetGateways({ databaseUrl: 'sqlite::memory:', count: 1, start, credits: 10 });
  try {
    await run(gateway, gateway.urls[0]);
  } finally {
    await gateway.close();
  }
}

function chat(url: string, key: string) {
  return call(url, key, 'POST', '/v1/chat/completions', { model: 'sim/fixed', max_tokens: FIXED_MAX_TOKENS, messages: [{ role: 'user', content: 'hello' }] });
}

async function statuses(url: string, key: string, count: number): Promise<number[]> {
  const answers: number[] = [];
  for (let index = 0; index < count; index += 1) answers.push((await chat(url, key)).status);
  return answers;
}

async function createKey(gateway: ResetGateways, body: Record<string, unknown>): Promise<{ id: string; key: string; data: Record<string, unknown> }> {
  const created = await call(gateway.urls[0], gateway.managementKey, 'POST', '/v1/keys', { name: 'worker', ...body });
  expect(created.status).toBe(201);
  return { id: created.body.data.id, key: created.body.key, data: created.body.data };
}

async function keyObject(gateway: ResetGateways, keyId: string): Promise<Record<string, any>> {
  const listed = await call(gateway.urls[0], gateway.managementKey, 'GET', '/v1/keys');
  return (listed.body.data as Array<Record<string, any>>).find((one) => one.id === keyId)!;
}

describe('key limits that reset weekly and monthly (issue 49)', () => {
  it('weekly: a day boundary within the week resets nothing; Monday 00:00 UTC does', async () => {
    // Wednesday 9 December 2026.
    await withGateway('2026-12-09T12:00:00.000Z', async (gateway, url) => {
      const worker = await createKey(gateway, { limit: 3 * COST, limit_reset: 'weekly' });
      expect(await statuses(url, worker.key, 4)).toEqual([200, 200, 200, 402]);
      await gateway.moveTo('2026-12-10T00:00:01.000Z');
      const thursday = await chat(url, worker.key);
      expect(thursday.status).toBe(402);
      expect(thursday.body.error.metadata.resets_at).toBe('2026-12-14T00:00:00.000Z');
      await gateway.moveTo('2026-12-13T23:59:59.999Z');
      expect((await chat(url, worker.key)).status).toBe(402);
      await gateway.moveTo('2026-12-14T00:00:00.000Z');
      expect(await statuses(url, worker.key, 4)).toEqual([200, 200, 200, 402]);
      const object = await keyObject(gateway, worker.id);
      expect(object).toMatchObject({ limit_reset: 'weekly', limit_remaining: 0 });
      expect(object.usage_weekly).toBeCloseTo(3 * COST, 9);
      expect(object.usage).toBeCloseTo(6 * COST, 9);
    });
  }, 60_000);

  it('monthly: the 1st 00:00 UTC resets, across the year', async () => {
    await withGateway('2026-12-15T08:00:00.000Z', async (gateway, url) => {
      const worker = await createKey(gateway, { limit: 3 * COST, limit_reset: 'monthly' });
      expect(await statuses(url, worker.key, 3)).toEqual([200, 200, 200]);
      await gateway.moveTo('2026-12-31T23:00:00.000Z');
      const refused = await chat(url, worker.key);
      expect(refused.status).toBe(402);
      expect(refused.body.error.metadata).toMatchObject({ limit_type: 'key_limit', resets_at: '2027-01-01T00:00:00.000Z' });
      await gateway.moveTo('2027-01-01T00:00:00.000Z');
      expect(await statuses(url, worker.key, 4)).toEqual([200, 200, 200, 402]);
      const object = await keyObject(gateway, worker.id);
      expect(object).toMatchObject({ limit_reset: 'monthly', limit_remaining: 0 });
      expect(object.usage_monthly).toBeCloseTo(3 * COST, 9);
      const books = await gateway.stopAndReadBooks();
      expect(books).toMatchObject({ charges: 6_000_000n, uncollected: 0n, reserved: 0n, keyReserved: 0n, held: 0n, logged: 6_000_000n, rolledUp: 6_000_000n, usage: 6_000_000n });
    });
  }, 60_000);
});

describe('changing and removing a key’s reset (issue 49)', () => {
  it('a lifetime limit switched to daily counts today only; back to lifetime counts everything; a lifetime refusal has no resets_at', async () => {
    // The clock starts at the real time: the usage rollups are kept by the time of each request.
    const now = new Date();
    await withGateway(now.toISOString(), async (gateway, url) => {
      const worker = await createKey(gateway, { limit: 3 * COST });
      expect(worker.data).toMatchObject({ limit_reset: null, usage_daily: 0, usage_weekly: 0, usage_monthly: 0 });
      expect(await statuses(url, worker.key, 3)).toEqual([200, 200, 200]);
      const lifetime = await chat(url, worker.key);
      expect(lifetime.status).toBe(402);
      expect(lifetime.body.error.metadata.limit_type).toBe('key_limit');
      expect(lifetime.body.error.metadata).not.toHaveProperty('resets_at');
      // Without a reset, the periods' usage is there all the same (OpenRouter shows it always).
      const before = await keyObject(gateway, worker.id);
      expect(before).toMatchObject({ limit_reset: null, limit_remaining: 0 });
      expect(before.usage_daily).toBeCloseTo(3 * COST, 9);
      expect(before.usage_weekly).toBeCloseTo(3 * COST, 9);
      expect(before.usage_monthly).toBeCloseTo(3 * COST, 9);

      // Daily, today: the three requests of today count, nothing is left until tomorrow.
      const daily = await call(url, gateway.managementKey, 'PATCH', `/v1/keys/${worker.id}/limit`, { limit_reset: 'daily' });
      expect(daily.status).toBe(200);
      expect(daily.body.data).toMatchObject({ limit: 3 * COST, limit_reset: 'daily', limit_remaining: 0 });
      expect(daily.body.data.usage_daily).toBeCloseTo(3 * COST, 9);
      expect((await chat(url, worker.key)).body.error.metadata.resets_at).toBeDefined();
      // The same reset again changes nothing.
      expect((await call(url, gateway.managementKey, 'PATCH', `/v1/keys/${worker.id}/limit`, { limit_reset: 'daily' })).body.data.limit_remaining).toBe(0);

      const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 0, 1));
      await gateway.moveTo(tomorrow.toISOString());
      expect((await keyObject(gateway, worker.id)).limit_remaining).toBeCloseTo(3 * COST, 9);
      expect(await statuses(url, worker.key, 2)).toEqual([200, 200]);
      expect((await keyObject(gateway, worker.id)).limit_remaining).toBeCloseTo(COST, 9);

      // Back to a lifetime limit: five requests charged, the limit is three: nothing left.
      const removed = await call(url, gateway.managementKey, 'PATCH', `/v1/keys/${worker.id}/limit`, { limit_reset: null });
      expect(removed.body.data).toMatchObject({ limit_reset: null, limit_remaining: 0 });
      expect(removed.body.data.usage).toBeCloseTo(5 * COST, 9);
      const refused = await chat(url, worker.key);
      expect(refused.status).toBe(402);
      expect(refused.body.error.metadata).not.toHaveProperty('resets_at');

      // A higher limit and a reset in one PATCH.
      const both = await call(url, gateway.managementKey, 'PATCH', `/v1/keys/${worker.id}/limit`, { limit: 10 * COST, limit_reset: 'weekly' });
      expect(both.body.data).toMatchObject({ limit: 10 * COST, limit_reset: 'weekly' });
      expect(both.body.data.limit_remaining).toBeCloseTo(10 * COST - both.body.data.usage_weekly, 9);
      const books = await gateway.stopAndReadBooks();
      expect(books).toMatchObject({ charges: 5_000_000n, uncollected: 0n, reserved: 0n, keyReserved: 0n, held: 0n, logged: 5_000_000n, rolledUp: 5_000_000n });
    });
  }, 60_000);

  it('GET /v1/key shows a key its own reset and period usage', async () => {
    await withGateway('2026-12-09T12:00:00.000Z', async (gateway, url) => {
      const worker = await createKey(gateway, { limit: 2 * COST, limit_reset: 'daily' });
      expect(await statuses(url, worker.key, 1)).toEqual([200]);
      const own = await call(url, worker.key, 'GET', '/v1/key');
      expect(own.body.data).toMatchObject({ id: worker.id, limit_reset: 'daily' });
      expect(own.body.data.limit_remaining).toBeCloseTo(COST, 9);
      expect(own.body.data.usage_daily).toBeCloseTo(COST, 9);
      expect(Object.keys(own.body.data)).toEqual(expect.arrayContaining(['limit_reset', 'usage_daily', 'usage_weekly', 'usage_monthly']));
    });
  }, 60_000);

  it('refuses a reset that is not daily, weekly, monthly or null, on PATCH and on creation', async () => {
    await withGateway('2026-12-09T12:00:00.000Z', async (gateway, url) => {
      const worker = await createKey(gateway, { limit: 1 });
      for (const limit_reset of ['hourly', 'Daily', 1, true, '']) {
        const patched = await call(url, gateway.managementKey, 'PATCH', `/v1/keys/${worker.id}/limit`, { limit_reset });
        expect(patched.status).toBe(400);
        expect(patched.body.error).toMatchObject({ code: 'invalid_request', param: 'limit_reset' });
        expect(patched.body.error.message).toContain('limit_reset');
      }
      const created = await call(url, gateway.managementKey, 'POST', '/v1/keys', { name: 'yearly', limit: 1, limit_reset: 'yearly' });
      expect(created.status).toBe(400);
      expect(created.body.error.message).toContain('limit_reset');
      expect((await call(url, gateway.managementKey, 'PATCH', '/v1/keys/key_missing/limit', { limit_reset: 'daily' })).status).toBe(404);
      expect((await keyObject(gateway, worker.id)).limit_reset).toBeNull();
    });
  }, 60_000);
});
