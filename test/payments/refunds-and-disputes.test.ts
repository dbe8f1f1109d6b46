import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from './start-payment-gateways.js';

/**
 * Contract §7: each refund debits once; a dispute debits and a won dispute credits back; a balance
 * a refund takes below zero refuses paid requests with 402. The fee paid on top (here 2.9 % +
 * 0.30) was never credited, so a full refund takes back exactly the credits.
 */
describe.each(testDatabases())('refunds and disputes on $name', (database) => {
  // On PostgreSQL three instances, each with a lease of the account's funds (docs/leases.md).
  const count = database.name === 'postgres' ? 3 : 1;
  let gateways: PaymentGateways;
  let stripe: Stripe;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ databaseUrl: database.url, count, payments: 'fee_percent: 2.9, fee_fixed: 0.30' });
    const { hostname, port } = new URL(gateways.fake.url);
    // The operator refunds from Stripe's dashboard; the same call through the SDK here.
    stripe = new Stripe(gateways.fake.secretKey, { host: hostname, port, protocol: 'http' });
  });
  afterAll(async () => gateways?.close());

  const webhook = () => `${gateways.urls[0]}/webhooks/stripe`;
  const credits = async (key: string) => (await call(gateways.urls[0], key, 'GET', '/v1/credits')).body.data;
  async function topUp(key: string, amount: number) {
    const { sessionId } = await checkoutAndPay(gateways, key, amount);
    expect((await gateways.fake.deliver(webhook(), gateways.fake.lastEvent('checkout.session.completed', sessionId))).status).toBe(200);
    const intentId = String(gateways.fake.sessions.get(sessionId)!.payment_intent);
    return String(gateways.fake.paymentIntents.get(intentId)!.latest_charge);
  }
  const chat = (key: string, instance = 0) => call(gateways.urls[instance], key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 20 });

  it(`a refund after the credit was spent leaves a negative balance, and the next paid request is 402 on every instance (${count})`, async () => {
    const { key } = await gateways.createAccount();
    const chargeId = await topUp(key, 10);
    // The customer paid 10 + 0.29 + 0.30.
    expect(gateways.fake.charges.get(chargeId)!.amount).toBe(1059);
    for (let instance = 0; instance < count; instance += 1) expect((await chat(key, instance)).status).toBe(200);
    const spent = await credits(key);
    expect(spent.total_usage).toBeGreaterThan(0);
    await stripe.refunds.create({ charge: chargeId });
    const refunded = gateways.fake.lastEvent('charge.refunded');
    for (let delivery = 0; delivery < 3; delivery += 1) expect((await gateways.fake.deliver(`${gateways.urls[delivery % count]}/webhooks/stripe`, refunded)).status).toBe(200);
    const after = await credits(key);
    expect(after.total_credits).toBe(0);
    expect(after.balance).toBeLessThan(0);
    for (let instance = 0; instance < count; instance += 1) {
      const refused = await chat(key, instance);
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('insufficient_balance');
    }
    const kinds = (await call(gateways.urls[0], key, 'GET', '/v1/credits/transactions')).body.data.map((row: { kind: string; amount: number }) => [row.kind, row.amount]);
    expect(kinds).toEqual([
      ['refund', -10],
      ['top_up', 10],
    ]);
  });

  it('debits each partial refund once, whichever charge.refunded names it', async () => {
    const { key } = await gateways.createAccount();
    const chargeId = await topUp(key, 100);
    // 100 credits for 103.20 paid: a refund of 51.60 is half the credits.
    await stripe.refunds.create({ charge: chargeId, amount: 5160 });
    const first = gateways.fake.lastEvent('charge.refunded');
    await stripe.refunds.create({ charge: chargeId, amount: 2580 });
    const second = gateways.fake.lastEvent('charge.refunded');
    for (const event of [second, first, second, first]) expect((await gateways.fake.deliver(webhook(), event)).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(25);
  });

  it('a dispute debits the disputed amount, and closed as won credits it back once', async () => {
    const { key } = await gateways.createAccount();
    const chargeId = await topUp(key, 10);
    const opened = gateways.fake.openDispute(chargeId);
    expect((await gateways.fake.deliver(webhook(), opened)).status).toBe(200);
    expect((await gateways.fake.deliver(webhook(), opened)).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(0);
    const won = gateways.fake.closeDispute(String(opened.data.object.id), 'won');
    expect((await gateways.fake.deliver(webhook(), won)).status).toBe(200);
    expect((await gateways.fake.deliver(webhook(), won)).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(10);
    const rows = (await call(gateways.urls[0], key, 'GET', '/v1/credits/transactions')).body.data;
    expect(rows.map((row: { kind: string }) => row.kind)).toEqual(['dispute_won', 'dispute', 'top_up']);
    expect(rows[1].reference).toBe(`stripe:dispute:${String(opened.data.object.id)}`);
  });

  it('a dispute closed as lost credits nothing back', async () => {
    const { key } = await gateways.createAccount();
    const chargeId = await topUp(key, 5);
    const opened = gateways.fake.openDispute(chargeId);
    await gateways.fake.deliver(webhook(), opened);
    expect((await gateways.fake.deliver(webhook(), gateways.fake.closeDispute(String(opened.data.object.id), 'lost'))).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(0);
  });
});
