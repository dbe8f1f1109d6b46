import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * A key's `limit_remaining` is its limit less what it has spent (and less what requests of the
 * exact path hold while they run), not less the slice of its limit an instance holds in a fund
 * lease (docs/leases.md): that slice is still the key's to spend. With leases on (the default),
 * the first request of a key with a limit leaves a lease row of up to ⅛ of the limit behind it.
 */
for (const database of testDatabases()) {
  describe(`a key's limit_remaining with a fund lease on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 10 });
    });
    afterAll(async () => gateway?.close());

    it('is the limit less the usage, while an instance holds part of the limit in a lease', async () => {
      const created = (await (await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'leased', limit: 4 })).json()) as { key: string; data: { id: string } };
      for (let index = 0; index < 3; index += 1) {
        const response = await sendJson(gateway, created.key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', max_tokens: 20, messages: [{ role: 'user', content: `hi ${index}` }] });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      // The lease row is there, holding part of the key's limit.
      const { db } = gateway.test.context.store;
      const leases = await db.selectFrom('reservations').select('amount').where('key_id', '=', created.data.id).whereRef('id', '=', 'request_id').execute();
      expect(leases).toHaveLength(1);
      const leased = BigInt(leases[0].amount);
      expect(leased).toBeGreaterThan(0n);
      const keyRow = await db.selectFrom('api_keys').select(['usage', 'reserved']).where('id', '=', created.data.id).executeTakeFirstOrThrow();
      expect(BigInt(keyRow.reserved)).toBe(leased);

      const listed = (await (await sendJson(gateway, gateway.key, 'GET', '/v1/keys')).json()) as { data: Array<{ id: string; limit: number; usage: number; limit_remaining: number }> };
      const key = listed.data.find((entry) => entry.id === created.data.id)!;
      const usage = BigInt(keyRow.usage);
      expect(usage).toBeGreaterThan(0n);
      expect(key.usage).toBe(Number(usage) / 1e9);
      expect(key.limit_remaining).toBe(Number(4_000_000_000n - usage) / 1e9);

      // The same through PATCH, which answers the key as it now is.
      const patched = (await (await sendJson(gateway, gateway.key, 'PATCH', `/v1/keys/${created.data.id}/limit`, { limit: 5 })).json()) as { data: { limit_remaining: number } };
      expect(patched.data.limit_remaining).toBe(Number(5_000_000_000n - usage) / 1e9);
    });
  });
}
