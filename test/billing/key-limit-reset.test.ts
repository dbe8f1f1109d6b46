import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { burst, FIXED_COST as COST, FIXED_MAX_TOKENS } from '../helpers/fixed-cost-load.js';
import { call, startResetGateways, type ResetGateways } from '../helpers/limit-reset-gateways.js';

/**
 * Issue 49, the first acceptance point: a key with a daily limit worth exactly N requests of the
 * fixed-cost model (0.001 USD each). N are served and the rest refused with 402 `key_limit` and
 * `metadata.resets_at`; the clock crosses 00:00 UTC; the next N are served; the books are exact.
 * On PostgreSQL with three instances and leases on (the default), which must neither serve past
 * the limit nor carry one day's allowance into the next; on SQLite with one.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL key-limit-reset test SKIPPED: set TEST_DATABASE_URL=postgres://… to run it\n');

const statusCounts = (statuses: number[]) => ({ served: statuses.filter((status) => status === 200).length, refused: statuses.filter((status) => status === 402).length });

function chat(url: string, key: string) {
  return call(url, key, 'POST', '/v1/chat/completions', { model: 'sim/fixed', max_tokens: FIXED_MAX_TOKENS, messages: [{ role: 'user', content: 'hello' }] });
}

async function keyRow(gateways: ResetGateways, keyId: string) {
  const row = await gateways.store.db.selectFrom('api_keys').select(['usage', 'period_usage', 'period_start', 'reserved']).where('id', '=', keyId).executeTakeFirstOrThrow();
  return { usage: BigInt(row.usage), periodUsage: BigInt(row.period_usage), periodStart: row.period_start, reserved: BigInt(row.reserved) };
}

/** The key's lease rows: how many instances hold one, and what they hold in all. */
async function leases(gateways: ResetGateways, keyId: string): Promise<{ holders: number; held: bigint }> {
  const rows = await gateways.store.db.selectFrom('reservations').select(['instance_id', 'amount']).where('key_id', '=', keyId).whereRef('id', '=', 'request_id').execute();
  return { holders: new Set(rows.map((row) => row.instance_id)).size, held: rows.reduce((sum, row) => sum + BigInt(row.amount), 0n) };
}

async function dailyLimitAcrossMidnight(databaseUrl: string, count: number, N: number): Promise<void> {
  const gateways = await startResetGateways({ databaseUrl, count, start: '2026-12-07T23:30:00.000Z', credits: 100 });
  try {
    const limit = (N * Number(COST)) / 1e9;
    const created = await call(gateways.urls[0], gateways.managementKey, 'POST', '/v1/keys', { name: 'daily', limit, limit_reset: 'daily' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ limit, limit_remaining: limit, limit_reset: 'daily', usage: 0, usage_daily: 0, usage_weekly: 0, usage_monthly: 0 });
    const key = created.body.key as string;
    const keyId = created.body.data.id as string;

    let holdersSeen = 0;
    const watch = setInterval(() => {
      void leases(gateways, keyId).then((now) => (holdersSeen = Math.max(holdersSeen, now.holders)), () => undefined);
    }, 20);
    const monday = statusCounts(await burst(gateways.urls, key, 2 * N, 24));
    expect(monday).toEqual({ served: N, refused: N });
    const refused = await chat(gateways.urls[count - 1], key);
    expect(refused.status).toBe(402);
    expect(refused.body.error.metadata).toMatchObject({ limit_type: 'key_limit', resets_at: '2026-12-08T00:00:00.000Z' });
    expect(refused.body.error.message).toContain('resets at 2026-12-08T00:00:00.000Z');

    // 00:00:01 UTC: the leases granted yesterday may still hold part of the key's limit, counted
    // against today's allowance (they are in `reserved`), never on top of it.
    await gateways.moveTo('2026-12-08T00:00:01.000Z');
    const tuesday = statusCounts(await burst(gateways.urls, key, 2 * N, 24));
    clearInterval(watch);
    expect(tuesday).toEqual({ served: N, refused: N });
    const refusedAgain = await chat(gateways.urls[0], key);
    expect(refusedAgain.body.error.metadata.resets_at).toBe('2026-12-09T00:00:00.000Z');
    // The money went through leases, not only through per-request reservations (on two instances at least, when there are several).
    expect(holdersSeen).toBeGreaterThanOrEqual(Math.min(count, 2));

    const listed = await call(gateways.urls[0], gateways.managementKey, 'GET', '/v1/keys');
    const object = (listed.body.data as Array<Record<string, unknown>>).find((one) => one.id === keyId)!;
    expect(object).toMatchObject({ limit_reset: 'daily', limit_remaining: 0 });
    expect(object.usage).toBeCloseTo(2 * limit, 9);
    // The period the limit counts in: today's requests only.
    expect(object.usage_daily).toBeCloseTo(limit, 9);

    const books = await gateways.stopAndReadBooks();
    expect(books.charges).toBe(COST * BigInt(2 * N));
    expect(books).toMatchObject({ usage: books.charges, reserved: 0n, keyReserved: 0n, held: 0n, open: 0, uncollected: 0n, logged: books.charges, rolledUp: books.charges });
    expect(await keyRow(gateways, keyId)).toEqual({ usage: COST * BigInt(2 * N), periodUsage: COST * BigInt(N), periodStart: '2026-12-08T00:00:00.000Z', reserved: 0n });
  } finally {
    await gateways.close();
  }
}

/**
 * A tenth of the day's allowance spent (leases are granted an eighth of what is free, and none
 * under 16 requests' worth), the leases still holding a slice of the key's limit at midnight: what they hold was granted under yesterday's allowance and is still the key's
 * `reserved`, so it is taken off today's; today serves exactly N, not N plus those slices.
 */
async function leasesAcrossMidnight(databaseUrl: string, count: number, N: number): Promise<void> {
  const gateways = await startResetGateways({ databaseUrl, count, start: '2026-12-31T23:00:00.000Z', credits: 100 });
  try {
    const limit = (N * Number(COST)) / 1e9;
    const created = await call(gateways.urls[0], gateways.managementKey, 'POST', '/v1/keys', { name: 'daily', limit, limit_reset: 'daily' });
    const key = created.body.key as string;
    const keyId = created.body.data.id as string;
    expect(statusCounts(await burst(gateways.urls, key, N / 10, 24))).toEqual({ served: N / 10, refused: 0 });
    const atMidnight = await leases(gateways, keyId);
    expect(atMidnight.held).toBeGreaterThan(0n);
    expect(atMidnight.holders).toBeGreaterThanOrEqual(Math.min(count, 2));

    await gateways.moveTo('2027-01-01T00:00:00.000Z');
    expect(statusCounts(await burst(gateways.urls, key, 2 * N, 24))).toEqual({ served: N, refused: N });
    const refused = await chat(gateways.urls[0], key);
    expect(refused.body.error.metadata.resets_at).toBe('2027-01-02T00:00:00.000Z');

    const books = await gateways.stopAndReadBooks();
    expect(books.charges).toBe(COST * BigInt(N / 10 + N));
    expect(books).toMatchObject({ usage: books.charges, reserved: 0n, keyReserved: 0n, held: 0n, open: 0, uncollected: 0n, logged: books.charges, rolledUp: books.charges });
    expect(await keyRow(gateways, keyId)).toEqual({ usage: COST * BigInt(N / 10 + N), periodUsage: COST * BigInt(N), periodStart: '2027-01-01T00:00:00.000Z', reserved: 0n });
  } finally {
    await gateways.close();
  }
}

describe('a key limit that resets daily (issue 49)', () => {
  it.skipIf(!postgresUrl)('three instances on PostgreSQL, leases on: N served a day, the rest 402 with resets_at, the next N after 00:00 UTC, books exact', async () => {
    await dailyLimitAcrossMidnight(postgresUrl!, 3, 200);
  }, 240_000);

  it('one instance on SQLite, leases on: the same', async () => {
    await dailyLimitAcrossMidnight('sqlite::memory:', 1, 200);
  }, 240_000);

  it.skipIf(!postgresUrl)('three instances on PostgreSQL: leases holding part of the limit at midnight are taken off the new day’s allowance, not added to it', async () => {
    await leasesAcrossMidnight(postgresUrl!, 3, 400);
  }, 240_000);

  it('one instance on SQLite: the same', async () => {
    await leasesAcrossMidnight('sqlite::memory:', 1, 400);
  }, 240_000);
});

