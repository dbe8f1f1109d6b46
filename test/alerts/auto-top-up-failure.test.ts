import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkoutAndPay, startPaymentGateways, type PaymentGateways } from '../payments/start-payment-gateways.js';
import { startWebhookReceiver, type WebhookReceiver } from './start-webhook-receiver.js';

const secret = 'whsec_auto-top-up-failure-0123456789';

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Contract §8: a declined auto top-up (the fake Stripe, through the official SDK) raises one `auto_top_up_failed` alert. */
describe('the auto top-up failure alert', () => {
  let gateways: PaymentGateways;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [gateways, receiver] = await Promise.all([startPaymentGateways({ webhookToFake: true }), startWebhookReceiver(secret)]);
    // The receiver is on loopback, as an on-premises one would be.
    gateways.contexts[0].config.alerts!.allowPrivateUrls = true;
  });
  afterAll(async () => {
    await gateways?.close();
    await receiver?.close();
  });

  it('a declined payment alerts the account once, signed', async () => {
    const { accountId, key } = await gateways.createAccount();
    await checkoutAndPay(gateways, key, 5);
    await gateways.fake.delivered();
    expect((await call(gateways.urls[0], key, 'PUT', '/v1/credits/auto-top-up', { enabled: true, threshold: 4.9999, amount: 10 })).status).toBe(200);
    const alerts = await call(gateways.urls[0], key, 'PUT', '/v1/alerts', { low_balance: null, key_limit_percents: [], channels: { email: false, telegram: false, webhook: { url: receiver.url, secret } } });
    expect(alerts.status).toBe(200);
    gateways.fake.declineOffSession = true;
    try {
      await Promise.all(Array.from({ length: 10 }, () => call(gateways.urls[0], key, 'POST', '/v1/chat/completions', { model: 'sim/openai-model', messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 20 })));
      await waitFor(async () => (await call(gateways.urls[0], key, 'GET', '/v1/credits/auto-top-up')).body.data, (value) => value.enabled === false);
      const failures = () => receiver.deliveries.filter((delivery) => delivery.alert.type === 'auto_top_up_failed');
      await waitFor(async () => {
        await gateways.contexts[0].tasks.runOnce();
        return failures().length;
      }, (count) => count > 0);
      // Later sweeps and task rounds add nothing.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await gateways.contexts[0].tasks.runOnce();
      expect(failures()).toHaveLength(1);
      expect(failures()[0]).toMatchObject({ verified: true, alert: { account_id: accountId, data: { reason: 'Your card has insufficient funds.' } } });
    } finally {
      gateways.fake.declineOffSession = false;
    }
  });
});
