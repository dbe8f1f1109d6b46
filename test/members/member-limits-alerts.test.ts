import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burst, creditsFor } from '../helpers/fixed-cost-load.js';
import { startAlertsHarness, webhookSecret, type AlertsHarness } from '../alerts/alerts-harness.js';

const day = 24 * 60 * 60 * 1000;

/**
 * Issue 49: alerts on limits that reset and on member limits. A key with a daily limit fires each
 * configured percent once per period — the clock crossing 00:00 UTC fires them again — and a
 * member's limit, spent through two of its keys under 200 concurrent requests, fires one
 * `member_limit` alert per percent. The real app over HTTP (SQLite), the webhook receiver
 * verifying each signature.
 */
describe('alerts on limits that reset and on member limits (SQLite)', () => {
  let harness: AlertsHarness;

  beforeAll(async () => {
    harness = await startAlertsHarness({ credits: Number(creditsFor(1000)) });
    const put = await harness.call('PUT', '/v1/alerts', {
      low_balance: null,
      key_limit_percents: [50, 100],
      channels: { email: false, telegram: false, webhook: { url: harness.receiver.url, secret: webhookSecret } },
    });
    expect(put.status).toBe(200);
  });
  afterAll(() => harness?.close());

  const sweepAndDeliver = async () => {
    for (let round = 0; round < 3; round += 1) await harness.sweep.runOnce();
    await harness.deliver();
  };

  it('a key with a daily limit: each percent once per period, and again after the clock crosses 00:00 UTC', async () => {
    const created = await harness.call('POST', '/v1/keys', { name: 'daily', limit: Number(creditsFor(10)), limit_reset: 'daily' });
    expect(created.status).toBe(201);
    const keyId: string = created.body.data.id;
    const alerts = () => harness.receiver.deliveries.filter((delivery) => delivery.alert.type === 'key_limit' && delivery.alert.data.key_id === keyId);
    const today = harness.clock.now().toISOString().slice(0, 10);

    expect((await burst([harness.gateway.url], created.body.key, 30, 30)).filter((status) => status === 200)).toHaveLength(10);
    await sweepAndDeliver();
    expect(alerts().map((delivery) => [delivery.alert.data.percent, delivery.alert.data.period])).toEqual([
      [50, `daily:${today}`],
      [100, `daily:${today}`],
    ]);
    await sweepAndDeliver();
    expect(alerts()).toHaveLength(2);

    const now = harness.clock.now().getTime();
    harness.clock.advance(Math.ceil((now + 1) / day) * day - now + 1_000);
    const tomorrow = harness.clock.now().toISOString().slice(0, 10);
    // Crossing midnight alone fires nothing: the new period has spent nothing yet.
    await sweepAndDeliver();
    expect(alerts()).toHaveLength(2);
    expect((await burst([harness.gateway.url], created.body.key, 30, 30)).filter((status) => status === 200)).toHaveLength(10);
    await sweepAndDeliver();
    expect(alerts().map((delivery) => [delivery.alert.data.percent, delivery.alert.data.period])).toEqual([
      [50, `daily:${today}`],
      [100, `daily:${today}`],
      [50, `daily:${tomorrow}`],
      [100, `daily:${tomorrow}`],
    ]);
    expect(alerts().every((delivery) => delivery.verified)).toBe(true);
  });

  it('a member limit spent through two keys under 200 concurrent requests: one member_limit alert per percent', async () => {
    const { context } = harness.gateway.test;
    const added = await harness.call('POST', `/admin/accounts/${harness.gateway.accountId}/members`, { email: 'member@alerts.test', role: 'member' }, harness.gateway.test.adminToken);
    expect(added.status).toBe(201);
    const user = await context.store.db.selectFrom('users').select('id').where('email', '=', 'member@alerts.test').executeTakeFirstOrThrow();
    const keys: Array<{ key: string; id: string }> = [];
    for (const name of ['member one', 'member two']) {
      const created = await harness.call('POST', '/v1/keys', { name });
      keys.push({ key: created.body.key, id: created.body.data.id });
    }
    // What `POST /v1/keys` records for a key the member makes signed in.
    await context.store.db.updateTable('api_keys').set({ created_by_user_id: user.id }).where('id', 'in', keys.map((one) => one.id)).execute();
    const patched = await harness.call('PATCH', `/v1/members/${user.id}`, { limit: Number(creditsFor(10)) });
    expect(patched.status).toBe(200);
    const alerts = () => harness.receiver.deliveries.filter((delivery) => delivery.alert.type === 'member_limit' && delivery.alert.data.user_id === user.id);

    expect((await burst([harness.gateway.url], keys[0].key, 6, 6)).every((status) => status === 200)).toBe(true);
    await sweepAndDeliver();
    expect(alerts().map((delivery) => delivery.alert.data.percent)).toEqual([50]);
    const statuses = (await Promise.all(keys.map((one) => burst([harness.gateway.url], one.key, 100, 100)))).flat();
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    expect(statuses.filter((status) => status === 402)).toHaveLength(196);
    await sweepAndDeliver();
    await sweepAndDeliver();
    expect(alerts().map((delivery) => delivery.alert.data.percent)).toEqual([50, 100]);
    expect(alerts()[1].alert.data).toMatchObject({ percent: 100, usage: 0.01, limit: 0.01, limit_reset: null, period: null });
    expect(alerts().every((delivery) => delivery.verified)).toBe(true);
  });
});
