import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from './start-payment-gateways.js';

/** Contract §7: Checkout with bounds and fees, the hosted page's way back, and the transactions list. */
describe('checkout and the transactions list', () => {
  let gateways: PaymentGateways;
  beforeAll(async () => {
    gateways = await startPaymentGateways({ payments: 'fee_percent: 2.9, fee_fixed: 0.30', webhookToFake: true });
  });
  afterAll(async () => gateways?.close());
  const url = () => gateways.urls[0];

  it('refuses amounts outside min…max or finer than a cent with 400, and ordinary keys with 403', async () => {
    const { key } = await gateways.createAccount();
    for (const amount of [4.99, 1000.01, 10.001, 0]) {
      const refused = await call(url(), key, 'POST', '/v1/credits/checkout', { amount });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message).toMatch(/'amount'/);
    }
    const ordinary = await call(url(), key, 'POST', '/v1/keys', { name: 'ordinary' });
    expect((await call(url(), ordinary.body.key, 'POST', '/v1/credits/checkout', { amount: 10 })).status).toBe(403);
    expect((await call(url(), ordinary.body.key, 'GET', '/v1/credits/transactions')).status).toBe(403);
    expect(gateways.fake.sessions.size).toBe(0);
  });

  it('opens a Checkout Session for the account with the fee as its own line and the card kept for later', async () => {
    const { accountId, key } = await gateways.createAccount();
    const created = await call(url(), key, 'POST', '/v1/credits/checkout', { amount: 10 });
    expect(created.status).toBe(200);
    expect(created.body.data.url).toBe(`${gateways.fake.url}/pay/${created.body.data.id}`);
    const session = gateways.fake.sessions.get(created.body.data.id)!;
    expect(session).toMatchObject({
      mode: 'payment',
      client_reference_id: accountId,
      amount_total: 1059,
      metadata: { account_id: accountId, credits_nano: '10000000000', switchyard_kind: 'top_up' },
      payment_intent_data: { setup_future_usage: 'off_session' },
      success_url: `${url()}/?topup=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${url()}/?topup=cancelled`,
    });
    expect((session.line_items_input as Array<{ price_data: { unit_amount: string } }>).map((item) => item.price_data.unit_amount)).toEqual(['1000', '59']);
    // One customer per account, however many checkouts.
    await call(url(), key, 'POST', '/v1/credits/checkout', { amount: 5 });
    expect([...gateways.fake.customers.values()].filter((customer) => (customer.metadata as { account_id: string }).account_id === accountId)).toHaveLength(1);
    const options = await call(url(), key, 'GET', '/v1/credits/checkout/options');
    expect(options.body.data).toEqual({ provider: 'stripe', currency: 'usd', amounts: [5, 10, 25, 100], min: 5, max: 1000, fee_percent: 2.9, fee_fixed: 0.3 });
  });

  it('the hosted page pays, the webhook credits, and the page comes back to the success URL', async () => {
    const { key } = await gateways.createAccount();
    const created = await call(url(), key, 'POST', '/v1/credits/checkout', { amount: 25 });
    const page = await fetch(created.body.data.url);
    expect(await page.text()).toContain('<button type="submit">Pay</button>');
    const paid = await fetch(created.body.data.url, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`${url()}/?topup=success&session_id=${created.body.data.id}`);
    const status = await call(url(), key, 'GET', `/v1/credits/checkout/${created.body.data.id}`);
    expect(status.body.data).toEqual({ id: created.body.data.id, status: 'complete', paid: true, credited: true, amount: 25 });
    expect((await call(url(), key, 'GET', '/v1/credits')).body.data.total_credits).toBe(25);
  });

  it('lists every movement, newest first and paged, summing to total_credits; another account sees none of them', async () => {
    const { key } = await gateways.createAccount(3);
    await checkoutAndPay(gateways, key, 10);
    await checkoutAndPay(gateways, key, 5);
    await gateways.fake.delivered();
    const rows: Array<{ id: string; kind: string; amount: number; created_at: string; reference: string | null; receipt_url: string | null }> = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: typeof rows; next_cursor: string | null } } = await call(url(), key, 'GET', `/v1/credits/transactions?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(rows.map((row) => [row.kind, row.amount])).toEqual([
      ['top_up', 5],
      ['top_up', 10],
      ['grant', 3],
    ]);
    expect(rows[2]).toMatchObject({ reference: null, receipt_url: null });
    const credits = (await call(url(), key, 'GET', '/v1/credits')).body.data;
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBe(credits.total_credits);

    const other = await gateways.createAccount();
    const theirs = await call(url(), other.key, 'GET', '/v1/credits/transactions');
    expect(theirs.body).toEqual({ data: [], next_cursor: null });
    const sessionId = rows[0].reference!.replace('stripe:checkout:', '');
    expect((await call(url(), other.key, 'GET', `/v1/credits/checkout/${sessionId}`)).status).toBe(404);
  });
});
