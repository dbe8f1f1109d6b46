import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/create-api-key.js';
import { call, startPaymentGateways } from '../payments/start-payment-gateways.js';

/**
 * Removing a member revokes the keys it made, and every instance stops taking them: the instance
 * that removes drops them from its key cache, the others hear of each revocation from PostgreSQL
 * (the `switchyard_leases` channel, `billing/lease-signals.ts`), even with the key cached there.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('member removal across 2 instances (PostgreSQL)', () => {
  it('a removed member’s key gets 401 on the other instance, where it was cached', async () => {
    const gateways = await startPaymentGateways({ databaseUrl: postgresUrl, count: 2 });
    try {
      const { accountId, key: managementKey } = await gateways.createAccount(10);
      const added = await fetch(`${gateways.urls[0]}/admin/accounts/${accountId}/members`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'leaver@example.com', role: 'member' }),
      });
      const userId = ((await added.json()) as { data: { user_id: string } }).data.user_id;
      // The key the member made on the page (its session names it as the maker).
      const { secret } = await createApiKey(gateways.contexts[0].store.db, gateways.contexts[0], { accountId, name: 'member key', management: false, createdByUserId: userId });
      expect((await call(gateways.urls[1], secret, 'GET', '/v1/key')).status).toBe(200);
      expect((await call(gateways.urls[1], secret, 'GET', '/v1/usage')).status).toBe(200);

      const removed = await call(gateways.urls[0], managementKey, 'DELETE', `/v1/members/${userId}`);
      expect(removed.status).toBe(200);
      expect((await call(gateways.urls[0], secret, 'GET', '/v1/usage')).status).toBe(401);
      const deadline = Date.now() + 5000;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await call(gateways.urls[1], secret, 'GET', '/v1/usage')).status;
        if (status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).toBe(401);
      expect((await call(gateways.urls[1], managementKey, 'GET', '/v1/members')).body.data).toEqual([]);
    } finally {
      await gateways.close();
    }
  });
});
