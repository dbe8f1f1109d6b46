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

async function leaseRows(gateways: ResetGateways, keyId: string): Promise<number> {
  const rows = await gateways.store.db.selectFrom('reservations').select('id').where('key_id', '=', keyId).whereRef('id', '=', 'request_id').execute();
  return rows.length;
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

    let leasesSeen = 0;
    const watch = setInterval(() => {
      void leaseRows(gateways, keyId).then((rows) => (leasesSeen = Math.max(leasesSeen, rows)), () => undefined);
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
    // The money went through leases, not only through per-request reservations.
    expect(leasesSeen).toBeGreaterThanOrEqual(1);

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

describe('a key limit that resets daily (issue 49)', () => {
  it.skipIf(!postgresUrl)('three instances on PostgreSQL, leases on: N served a day, the rest 402 with resets_at, the next N after 00:00 UTC, books exact', async () => {
    await dailyLimitAcrossMidnight(postgresUrl!, 3, 200);
  }, 240_000);

  it('one instance on SQLite, leases on: the same', async () => {
    await dailyLimitAcrossMidnight('sqlite::memory:', 1, 200);
  }, 240_000);
});

