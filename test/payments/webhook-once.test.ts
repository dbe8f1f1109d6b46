import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from './start-payment-gateways.js';

/**
 * Contract §7: a Checkout Session credits the account exactly once however often, in whatever
 * order and on however many instances its events arrive; a webhook whose signature is missing,
 * wrong or stale is 400 and changes nothing.
 */
describe.each(testDatabases())('Stripe webhooks on $name', (database) => {
  const count = database.name === 'postgres' ? 3 : 1;
  let gateways: PaymentGateways;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ databaseUrl: database.url, count });
  });
  afterAll(async () => gateways?.close());

  const credits = async (key: string) => (await call(gateways.urls[0], key, 'GET', '/v1/credits')).body.data;

  it(`credits once when the same checkout.session.completed arrives 5 times at once on ${count} instance(s)`, async () => {
    const { accountId, key } = await gateways.createAccount();
    const { sessionId } = await checkoutAndPay(gateways, key, 10);
    const event = gateways.fake.lastEvent('checkout.session.completed', sessionId);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, index) => gateways.fake.deliver(`${gateways.urls[index % count]}/webhooks/stripe`, event)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await credits(key)).toEqual({ total_credits: 10, total_usage: 0, balance: 10 });
    const transactions = await call(gateways.urls[0], key, 'GET', '/v1/credits/transactions');
    expect(transactions.body.data).toHaveLength(1);
    expect(transactions.body.data[0]).toMatchObject({ kind: 'top_up', amount: 10, reference: `stripe:checkout:${sessionId}` });
    expect(transactions.body.data[0].receipt_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/receipts\//);
    // The card of that Checkout is saved for auto top-up.
    const settings = await call(gateways.urls[count - 1], key, 'GET', '/v1/credits/auto-top-up');
    expect(settings.body.data.payment_method_saved).toBe(true);
    expect(accountId).toMatch(/^acc/);
  });

  it('credits a delayed payment once, whichever of its events comes first and however often', async () => {
    const { key } = await gateways.createAccount();
    const { sessionId } = await checkoutAndPay(gateways, key, 25, { paymentStatus: 'unpaid' });
    const completedUnpaid = gateways.fake.lastEvent('checkout.session.completed', sessionId);
    gateways.fake.succeedAsyncPayment(sessionId);
    const succeeded = gateways.fake.lastEvent('checkout.session.async_payment_succeeded', sessionId);
    const intentSucceeded = gateways.fake.lastEvent('payment_intent.succeeded');
    // The money's event before the session's first one; then the rest, twice.
    for (const event of [succeeded, completedUnpaid, intentSucceeded, succeeded, completedUnpaid]) {
      expect((await gateways.fake.deliver(`${gateways.urls[0]}/webhooks/stripe`, event)).status).toBe(200);
    }
    expect((await credits(key)).total_credits).toBe(25);
  });

  it('an unpaid completed session alone credits nothing', async () => {
    const { key } = await gateways.createAccount();
    const { sessionId } = await checkoutAndPay(gateways, key, 10, { paymentStatus: 'unpaid' });
    expect((await gateways.fake.deliver(`${gateways.urls[0]}/webhooks/stripe`, gateways.fake.lastEvent('checkout.session.completed', sessionId))).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(0);
  });

  it('refuses forged, unsigned, stale and altered deliveries with 400 and credits nothing; the genuine one then credits', async () => {
    const { key } = await gateways.createAccount();
    const { sessionId } = await checkoutAndPay(gateways, key, 10);
    const event = gateways.fake.lastEvent('checkout.session.completed', sessionId);
    const url = `${gateways.urls[count - 1]}/webhooks/stripe`;
    const refusals = [
      await gateways.fake.deliver(url, event, { secret: 'whsec_forged' }),
      await gateways.fake.deliver(url, event, { header: null }),
      await gateways.fake.deliver(url, event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      // A genuine signature over other bytes: the amount changed after signing.
      await (async () => {
        const { payload, header } = gateways.fake.signed(event);
        const altered = payload.replace('"credits_nano": "10000000000"', '"credits_nano": "99000000000"');
        expect(altered).not.toBe(payload);
        return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: altered });
      })(),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(400);
      expect(((await refusal.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    }
    expect((await credits(key)).total_credits).toBe(0);
    expect((await gateways.fake.deliver(url, event)).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(10);
  });

  it('answers 200 to event types that move no money', async () => {
    const { key } = await gateways.createAccount();
    await checkoutAndPay(gateways, key, 5);
    const charge = gateways.fake.lastEvent('charge.succeeded');
    expect((await gateways.fake.deliver(`${gateways.urls[0]}/webhooks/stripe`, charge)).status).toBe(200);
    expect((await credits(key)).total_credits).toBe(0);
  });
});
