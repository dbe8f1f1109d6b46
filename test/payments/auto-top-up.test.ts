import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from './start-payment-gateways.js';

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Contract §7: when charges take the balance below the threshold, one off-session payment per
 * crossing, however many instances charge the account; a declined one turns auto top-up off.
 */
describe.each(testDatabases())('auto top-up on $name', (database) => {
  const count = database.name === 'postgres' ? 3 : 1;
  let gateways: PaymentGateways;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ databaseUrl: database.url, count, webhookToFake: true });
  });
  afterAll(async () => gateways?.close());

  const autoTopUpIntents = (accountId: string) =>
    [...gateways.fake.paymentIntents.values()].filter((intent) => (intent.metadata as Record<string, string>).switchyard_kind === 'auto_top_up' && (intent.metadata as Record<string, string>).account_id === accountId);
  const chat = (index: number, key: string) =>
    call(gateways.urls[index % count], key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 20 });

  /** An account with 5 USD from a Checkout (its card saved), and auto top-up of 10 below 4.9999. */
  async function accountWithAutoTopUp() {
    const account = await gateways.createAccount();
    await checkoutAndPay(gateways, account.key, 5);
    await gateways.fake.delivered();
    const saved = await call(gateways.urls[0], account.key, 'PUT', '/v1/credits/auto-top-up', { enabled: true, threshold: 4.9999, amount: 10 });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ enabled: true, threshold: 4.9999, amount: 10, payment_method_saved: true, last_failure: null });
    return account;
  }

  it(`${count} instance(s) charging one account across its threshold make exactly one payment`, async () => {
    const { accountId, key } = await accountWithAutoTopUp();
    // Each request costs a few hundredths of a cent: 30 of them, spread over the instances, cross 4.9999.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => chat(index, key)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const credits = await waitFor(
      async () => (await call(gateways.urls[0], key, 'GET', '/v1/credits')).body.data,
      (value) => value.total_credits === 15,
    );
    expect(credits.balance).toBeGreaterThan(14.99);
    // Several sweeps of every instance later, still one.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await gateways.fake.delivered();
    expect(autoTopUpIntents(accountId)).toHaveLength(1);
    const intent = autoTopUpIntents(accountId)[0];
    expect(intent).toMatchObject({ status: 'succeeded', amount: 1000, customer: expect.stringMatching(/^cus_/), payment_method: expect.stringMatching(/^pm_/) });
    const creates = gateways.fake.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payment_intents');
    expect(creates.every((request) => request.idempotencyKey?.startsWith('switchyard-auto-top-up-atu'))).toBe(true);
    // Its payment_intent.succeeded, delivered again to every instance, credits nothing more.
    const succeeded = gateways.fake.lastEvent('payment_intent.succeeded', intent.id);
    for (const url of gateways.urls) expect((await gateways.fake.deliver(`${url}/webhooks/stripe`, succeeded)).status).toBe(200);
    const rows = (await call(gateways.urls[0], key, 'GET', '/v1/credits/transactions')).body.data;
    expect(rows.map((row: { kind: string; amount: number }) => [row.kind, row.amount])).toEqual([
      ['auto_top_up', 10],
      ['top_up', 5],
    ]);
    expect(rows[0].reference).toBe(`stripe:payment_intent:${intent.id}`);
    expect((await call(gateways.urls[0], key, 'GET', '/v1/credits/auto-top-up')).body.data).toMatchObject({ enabled: true, in_flight: false });
  });

  it('a declined payment turns auto top-up off and says why', async () => {
    const { accountId, key } = await accountWithAutoTopUp();
    gateways.fake.declineOffSession = true;
    try {
      await Promise.all(Array.from({ length: 10 }, (_, index) => chat(index, key)));
      const settings = await waitFor(
        async () => (await call(gateways.urls[count - 1], key, 'GET', '/v1/credits/auto-top-up')).body.data,
        (value) => value.enabled === false,
      );
      expect(settings.last_failure.message).toBe('Your card has insufficient funds.');
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(autoTopUpIntents(accountId)).toHaveLength(1);
      expect(autoTopUpIntents(accountId)[0].status).toBe('requires_payment_method');
      expect((await call(gateways.urls[0], key, 'GET', '/v1/credits')).body.data.total_credits).toBe(5);
    } finally {
      gateways.fake.declineOffSession = false;
    }
  });

  it('cannot be turned on without a saved card, nor for an amount outside the top-up bounds', async () => {
    const { key } = await gateways.createAccount(20);
    const refused = await call(gateways.urls[0], key, 'PUT', '/v1/credits/auto-top-up', { enabled: true, threshold: 5, amount: 10 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/saved/);
    expect((await call(gateways.urls[0], key, 'PUT', '/v1/credits/auto-top-up', { enabled: false, threshold: 5, amount: 2000 })).status).toBe(400);
    expect((await call(gateways.urls[0], key, 'GET', '/v1/credits/auto-top-up')).body.data).toMatchObject({ enabled: false, payment_method_saved: false });
  });
});

/**
 * An instance that claimed a payment and died before it recorded the PaymentIntent (or whose
 * answer was lost) leaves a claim without a payment; after a minute another instance takes it
 * over with the same claim id, hence the same idempotency key, and Stripe answers the payment
 * already made: still one payment, credited once.
 */
describe('auto top-up after a lost answer', () => {
  let gateways: PaymentGateways;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ webhookToFake: true });
  });
  afterAll(async () => gateways?.close());

  it('takes over a stale claim with its own idempotency key and makes no second payment', async () => {
    const { accountId, key } = await gateways.createAccount();
    await checkoutAndPay(gateways, key, 5);
    await gateways.fake.delivered();
    // From here on only the sweep can credit: the payment's own event is not delivered.
    gateways.fake.webhookUrl = undefined;
    const { db } = gateways.contexts[0].store;
    const customer = await db.selectFrom('payment_customers').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
    // The dead instance's claim, two minutes old, and the payment it made before dying.
    await db
      .insertInto('auto_top_ups')
      .values({ account_id: accountId, enabled: 1, threshold: 100_000_000_000n, amount: 10_000_000_000n, armed: 0, in_flight_id: 'atu_lost', in_flight_since: new Date(Date.now() - 120_000).toISOString(), payment_id: null, last_failure: null, last_failure_at: null, updated_at: new Date().toISOString() })
      .execute();
    const { hostname, port } = new URL(gateways.fake.url);
    const stripe = new Stripe(gateways.fake.secretKey, { host: hostname, port, protocol: 'http' });
    const made = await stripe.paymentIntents.create(
      { amount: 1000, currency: 'usd', customer: customer.customer_id, payment_method: customer.payment_method_id!, off_session: true, confirm: true, metadata: { account_id: accountId, credits_nano: '10000000000', switchyard_kind: 'auto_top_up', auto_top_up_claim: 'atu_lost' } },
      { idempotencyKey: 'switchyard-auto-top-up-atu_lost' },
    );
    const credits = await waitFor(
      async () => (await call(gateways.urls[0], key, 'GET', '/v1/credits')).body.data,
      (value) => value.total_credits === 15,
    );
    expect(credits.total_credits).toBe(15);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const intents = [...gateways.fake.paymentIntents.values()].filter((intent) => (intent.metadata as Record<string, string>).switchyard_kind === 'auto_top_up');
    expect(intents.map((intent) => intent.id)).toEqual([made.id]);
    expect((await call(gateways.urls[0], key, 'GET', '/v1/credits/transactions')).body.data[0]).toMatchObject({ kind: 'auto_top_up', reference: `stripe:payment_intent:${made.id}` });
    const creates = gateways.fake.requests.filter((request) => request.path === '/v1/payment_intents' && request.method === 'POST');
    expect(creates.map((request) => request.idempotencyKey)).toEqual(['switchyard-auto-top-up-atu_lost', 'switchyard-auto-top-up-atu_lost']);
  });
});
