import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

const parallel = 200;

/**
 * The account at rest: the books flushed and this instance's leases (docs/leases.md) given
 * back, so that every amount still reserved would be a leak.
 */
async function totals(gateway: SimulatedGateway, accountId: string) {
  const { db } = gateway.test.context.store;
  await gateway.test.context.requestLog.flush();
  await gateway.test.context.ledger.returnLeases();
  const account = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  const charges = await sql<{ total: bigint | number | string | null }>`select sum(amount) as total from ledger_entries where account_id = ${accountId} and kind = 'charge'`.execute(db);
  const credits = await sql<{ total: bigint | number | string | null }>`select sum(amount) as total from ledger_entries where account_id = ${accountId} and kind = 'credit'`.execute(db);
  const open = await db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute();
  return {
    totalCredits: BigInt(account.total_credits),
    totalUsage: BigInt(account.total_usage),
    reserved: BigInt(account.reserved),
    charges: BigInt(charges.rows[0].total ?? 0),
    credits: BigInt(credits.rows[0].total ?? 0),
    openReservations: open.length,
  };
}

function fire(gateway: SimulatedGateway, key: string, count: number, body: Record<string, unknown>) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    }),
  );
}

const request = { model: 'sim/openai-model', max_tokens: 16, messages: [{ role: 'user', content: 'count the money' }] };
/** USD floats from the API back to exact nano-USD. */
const toNano = (usd: number) => BigInt(Math.round(usd * 1e9));

for (const database of testDatabases()) {
  describe(`ledger under concurrency on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 0.0004, simulator: { latencyMs: 5 } });
    });
    afterAll(async () => gateway?.close());

    it(`${parallel} parallel requests against an account whose funds cover a fraction: never below zero, no lost update, every refusal 402`, async () => {
      const results = await fire(gateway, gateway.key, parallel, request);
      const succeeded = results.filter((result) => result.status === 200);
      const refused = results.filter((result) => result.status !== 200);
      expect(succeeded.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) {
        expect(result.status).toBe(402);
        expect(result.body.error).toMatchObject({ code: 'insufficient_balance', status: 402 });
      }
      const after = await totals(gateway, gateway.accountId);
      expect(after.openReservations).toBe(0);
      expect(after.reserved).toBe(0n);
      expect(after.totalUsage).toBe(after.charges);
      expect(after.totalCredits).toBe(after.credits);
      expect(after.totalCredits - after.totalUsage).toBeGreaterThanOrEqual(0n);
      const reported = succeeded.reduce((sum, result) => sum + toNano(result.body.usage.cost), 0n);
      expect(reported).toBe(after.totalUsage);
      const credits = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as any;
      expect(toNano(credits.data.balance)).toBe(after.totalCredits - after.totalUsage);
    });

    it(`${parallel} parallel requests against a key whose limit covers a fraction: the key never goes below zero, refusals say key_limit`, async () => {
      await gateway.test.app.inject({ method: 'POST', url: `/admin/accounts/${gateway.accountId}/credits`, headers: { authorization: `Bearer ${gateway.test.adminToken}` }, payload: { amount: 100 } });
      const created = await fetch(`${gateway.url}/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'limited', limit: 0.0003 }),
      });
      const { key, data } = (await created.json()) as any;
      const results = await fire(gateway, key, parallel, request);
      const refused = results.filter((result) => result.status !== 200);
      expect(results.some((result) => result.status === 200)).toBe(true);
      expect(refused.length).toBeGreaterThan(0);
      for (const result of refused) {
        expect(result.status).toBe(402);
        expect(result.body.error.metadata.limit_type).toBe('key_limit');
      }
      await gateway.test.context.requestLog.flush();
      await gateway.test.context.ledger.returnLeases();
      const row = await gateway.test.context.store.db.selectFrom('api_keys').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
      expect(BigInt(row.reserved)).toBe(0n);
      expect(BigInt(row.usage)).toBeLessThanOrEqual(BigInt(row.spend_limit!));
      const reported = results.filter((result) => result.status === 200).reduce((sum, result) => sum + toNano(result.body.usage.cost), 0n);
      expect(BigInt(row.usage)).toBe(reported);
      const after = await totals(gateway, gateway.accountId);
      expect(after.totalUsage).toBe(after.charges);
    });

    it('caps max_tokens to the funds when the client gave none, instead of refusing', async () => {
      const poor = await gateway.test.createAccount({ credits: 0.001 });
      // Without max_tokens the ceiling (1,000 tokens at 2 USD/M = 0.002 USD) exceeds the balance.
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${poor.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(response.status).toBe(200);
      const balance = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${poor.key}` } })).json()) as any;
      expect(balance.data.balance).toBeGreaterThanOrEqual(0);
      const broke = await gateway.test.createAccount({ credits: 0 });
      const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${broke.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(refused.status).toBe(402);
    });

    it('charges nothing for failed requests and releases their reservations', async () => {
      const before = await totals(gateway, gateway.accountId);
      gateway.simulator.setFault({ match: { model: 'gpt-sim' }, fault: { status: 500 } });
      const results = await fire(gateway, gateway.key, 5, request);
      gateway.simulator.clearFaults();
      expect(results.every((result) => result.status === 502)).toBe(true);
      const after = await totals(gateway, gateway.accountId);
      expect(after.totalUsage).toBe(before.totalUsage);
      expect(after.openReservations).toBe(0);
    });
  });
}
