import { describe, expect, it } from 'vitest';
import { burst, FIXED_COST as COST, FIXED_MAX_TOKENS } from '../helpers/fixed-cost-load.js';
import { insertMembership } from '../../src/store/repositories/memberships.js';
import { call, startResetGateways, type ResetGateways } from '../helpers/limit-reset-gateways.js';

/**
 * Issue 49, "a member with a limit cannot pass it through any of its keys, concurrently, on 3
 * instances": a member whose daily limit is worth exactly N requests of the fixed-cost model
 * (0.001 USD each) spends through three keys it made, all at once, on three instances with
 * leases on (PostgreSQL), or one (SQLite). Exactly N are served, the rest refused with 402
 * `member_limit` and `resets_at`; the next day serves N more; the books are exact, and the
 * member's row holds nothing once the instances stop.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL member-limits test SKIPPED: set TEST_DATABASE_URL=postgres://… to run it\n');

const statusCounts = (statuses: number[]) => ({ served: statuses.filter((status) => status === 200).length, refused: statuses.filter((status) => status === 402).length });

function chat(url: string, key: string) {
  return call(url, key, 'POST', '/v1/chat/completions', { model: 'sim/fixed', max_tokens: FIXED_MAX_TOKENS, messages: [{ role: 'user', content: 'hello' }] });
}

/** A member of the account (as an accepted invite leaves it) and `count` keys it made. */
async function memberWithKeys(gateways: ResetGateways, userId: string, count: number): Promise<{ keys: string[]; keyIds: string[] }> {
  const now = gateways.clock.now().toISOString();
  await gateways.store.db.insertInto('users').values({ id: userId, name: 'Member', email: `${userId}@example.com`, telegram_id: null, created_at: now }).execute();
  await gateways.store.db.insertInto('memberships').values({ user_id: userId, account_id: gateways.accountId, role: 'member', created_at: now }).execute();
  const keys: string[] = [];
  const keyIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await call(gateways.urls[0], gateways.managementKey, 'POST', '/v1/keys', { name: `member key ${index}` });
    expect(created.status).toBe(201);
    keys.push(created.body.key);
    keyIds.push(created.body.data.id);
  }
  // What `POST /v1/keys` records for a key a signed-in member makes.
  await gateways.store.db.updateTable('api_keys').set({ created_by_user_id: userId }).where('id', 'in', keyIds).execute();
  return { keys, keyIds };
}

async function memberRow(gateways: ResetGateways, userId: string) {
  const row = await gateways.store.db.selectFrom('memberships').select(['period_usage', 'period_start', 'reserved']).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return { periodUsage: BigInt(row.period_usage), periodStart: row.period_start, reserved: BigInt(row.reserved) };
}

/** 2N requests spread over the keys, all at once on every instance. */
async function spread(gateways: ResetGateways, keys: string[], N: number): Promise<{ served: number; refused: number }> {
  const each = (2 * N) / keys.length;
  const statuses = await Promise.all(keys.map((key) => burst(gateways.urls, key, each, 12)));
  return statusCounts(statuses.flat());
}

async function memberLimitAcrossMidnight(databaseUrl: string, count: number, N: number): Promise<void> {
  const gateways = await startResetGateways({ databaseUrl, count, start: '2026-12-07T23:30:00.000Z', credits: 100 });
  try {
    const userId = 'usr_member_limited';
    const { keys, keyIds } = await memberWithKeys(gateways, userId, 3);
    const limit = (N * Number(COST)) / 1e9;
    const patched = await call(gateways.urls[1 % count], gateways.managementKey, 'PATCH', `/v1/members/${userId}`, { limit, limit_reset: 'daily' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ user_id: userId, limit, limit_reset: 'daily', usage: 0 });

    let holdersSeen = 0;
    const watch = setInterval(() => {
      void gateways.store.db
        .selectFrom('reservations')
        .select('instance_id')
        .where('key_id', 'in', keyIds)
        .whereRef('id', '=', 'request_id')
        .execute()
        .then((rows) => (holdersSeen = Math.max(holdersSeen, new Set(rows.map((row) => row.instance_id)).size)), () => undefined);
    }, 20);
    expect(await spread(gateways, keys, N)).toEqual({ served: N, refused: N });
    clearInterval(watch);
    // The member's money went through leases on several instances, not only per-request reservations.
    expect(holdersSeen).toBeGreaterThanOrEqual(Math.min(count, 2));
    const refused = await chat(gateways.urls[count - 1], keys[0]);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_balance');
    expect(refused.body.error.metadata).toMatchObject({ limit_type: 'member_limit', resets_at: '2026-12-08T00:00:00.000Z' });

    const listed = await call(gateways.urls[0], gateways.managementKey, 'GET', '/v1/members');
    const member = (listed.body.data as Array<Record<string, unknown>>).find((one) => one.user_id === userId)!;
    expect(member).toMatchObject({ limit, limit_reset: 'daily' });
    expect(member.usage).toBeCloseTo(limit, 9);

    await gateways.moveTo('2026-12-08T00:00:01.000Z');
    expect(await spread(gateways, keys, N)).toEqual({ served: N, refused: N });
    const refusedAgain = await chat(gateways.urls[0], keys[2]);
    expect(refusedAgain.body.error.metadata).toMatchObject({ limit_type: 'member_limit', resets_at: '2026-12-09T00:00:00.000Z' });

    const books = await gateways.stopAndReadBooks();
    expect(books.charges).toBe(COST * BigInt(2 * N));
    expect(books).toMatchObject({ usage: books.charges, reserved: 0n, keyReserved: 0n, held: 0n, open: 0, uncollected: 0n, logged: books.charges, rolledUp: books.charges });
    expect(await memberRow(gateways, userId)).toEqual({ periodUsage: COST * BigInt(N), periodStart: '2026-12-08T00:00:00.000Z', reserved: 0n });
    const keyUsage = await gateways.store.db.selectFrom('api_keys').select('usage').where('id', 'in', keyIds).execute();
    expect(keyUsage.reduce((sum, row) => sum + BigInt(row.usage), 0n)).toBe(COST * BigInt(2 * N));
  } finally {
    await gateways.close();
  }
}

/** A lifetime member limit; lowering it to what was spent refuses at once, clearing it serves again. */
async function lifetimeLimitChanges(databaseUrl: string, count: number, N: number): Promise<void> {
  const gateways = await startResetGateways({ databaseUrl, count, start: '2026-12-07T12:00:00.000Z', credits: 100 });
  try {
    const userId = 'usr_member_lifetime';
    const { keys } = await memberWithKeys(gateways, userId, 2);
    const other = await call(gateways.urls[0], gateways.managementKey, 'POST', '/v1/keys', { name: 'not the member’s' });
    const limit = (N * Number(COST)) / 1e9;
    expect((await call(gateways.urls[0], gateways.managementKey, 'PATCH', `/v1/members/${userId}`, { limit })).status).toBe(200);
    expect(await spread(gateways, keys, N)).toEqual({ served: N, refused: N });
    const refused = await chat(gateways.urls[0], keys[1]);
    expect(refused.body.error.metadata.limit_type).toBe('member_limit');
    expect(refused.body.error.metadata.resets_at).toBeUndefined();
    // A key nobody's member made is not limited by it.
    expect((await chat(gateways.urls[count - 1], other.body.key)).status).toBe(200);

    const cleared = await call(gateways.urls[0], gateways.managementKey, 'PATCH', `/v1/members/${userId}`, { limit: null });
    expect(cleared.body.data).toMatchObject({ limit: null, limit_reset: null });
    expect((await chat(gateways.urls[count - 1], keys[0])).status).toBe(200);

    // Removed while its keys' leases may hold part of the account: the keys are refused, and what
    // they held comes back. Invited back, its row starts from its old keys' totals.
    expect((await call(gateways.urls[0], gateways.managementKey, 'DELETE', `/v1/members/${userId}`)).status).toBe(200);
    expect((await chat(gateways.urls[count - 1], keys[1])).status).toBe(401);
    await insertMembership(gateways.store.db, { userId, accountId: gateways.accountId, role: 'member', createdAt: gateways.clock.now().toISOString() });

    const books = await gateways.stopAndReadBooks();
    expect(books.charges).toBe(COST * BigInt(N + 2));
    expect(books).toMatchObject({ usage: books.charges, reserved: 0n, keyReserved: 0n, held: 0n, open: 0, uncollected: 0n });
    expect(await memberRow(gateways, userId)).toEqual({ periodUsage: COST * BigInt(N + 1), periodStart: null, reserved: 0n });
    const audit = await gateways.store.db.selectFrom('audit_entries').select(['action', 'target']).where('action', '=', 'member.limit').execute();
    expect(audit).toEqual([
      { action: 'member.limit', target: userId },
      { action: 'member.limit', target: userId },
    ]);
  } finally {
    await gateways.close();
  }
}

describe('a member limit across the member’s keys (issue 49)', () => {
  it.skipIf(!postgresUrl)('three instances on PostgreSQL, leases on, three keys at once: N served a day, the rest 402 member_limit with resets_at, N more after 00:00 UTC, books exact', async () => {
    await memberLimitAcrossMidnight(postgresUrl!, 3, 480);
  }, 240_000);

  it('one instance on SQLite, leases on: the same', async () => {
    await memberLimitAcrossMidnight('sqlite::memory:', 1, 480);
  }, 240_000);

  it.skipIf(!postgresUrl)('three instances on PostgreSQL: a lifetime member limit, then cleared; other keys unaffected', async () => {
    await lifetimeLimitChanges(postgresUrl!, 3, 60);
  }, 240_000);

  it('one instance on SQLite: the same', async () => {
    await lifetimeLimitChanges('sqlite::memory:', 1, 60);
  }, 240_000);
});
