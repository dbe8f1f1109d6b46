import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertSweep } from '../../src/alerts/alert-sweep.js';
import { burst, creditsFor, FIXED_COST } from '../helpers/fixed-cost-load.js';
import { readAccountMoney } from '../helpers/simulated-gateway.js';
import { adminEmail, ownerEmail, startAlertsHarness, webhookSecret, type AlertsHarness } from './alerts-harness.js';
import { verifySignature } from './start-webhook-receiver.js';

const minute = 60_000;

describe('alerts: once per crossing on every channel (SQLite)', () => {
  let harness: AlertsHarness;

  beforeAll(async () => {
    // 300 requests' worth; the threshold is what 150 requests leave, so 200 requests cross it.
    harness = await startAlertsHarness({ credits: Number(creditsFor(300)) });
  });
  afterAll(() => harness?.close());

  it('stores the settings, shows the secret masked, and writes alerts.update to the audit log', async () => {
    const put = await harness.call('PUT', '/v1/alerts', {
      low_balance: { threshold: Number(creditsFor(150)) },
      key_limit_percents: [100, 80],
      channels: { email: true, telegram: true, webhook: { url: harness.receiver.url, secret: webhookSecret } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({
      low_balance: { threshold: 0.15 },
      key_limit_percents: [80, 100],
      channels: { email: true, telegram: true, webhook: { url: harness.receiver.url, secret: `****${webhookSecret.slice(-4)}` } },
    });
    expect(JSON.stringify((await harness.call('GET', '/v1/alerts')).body)).not.toContain(webhookSecret);
    const audit = await harness.call('GET', '/v1/audit?action=alerts.update');
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ action: 'alerts.update', actor: { type: 'key' } });
    expect(JSON.stringify(audit.body.data[0].details)).not.toContain(webhookSecret);
  });

  it('refuses invalid settings in the error envelope', async () => {
    const cases: Array<[unknown, string]> = [
      [{ low_balance: { threshold: -1 }, key_limit_percents: [], channels: { email: false, telegram: false, webhook: null } }, 'threshold'],
      [{ low_balance: null, key_limit_percents: [0], channels: { email: false, telegram: false, webhook: null } }, 'key_limit_percents'],
      [{ low_balance: null, key_limit_percents: [80, 80], channels: { email: false, telegram: false, webhook: null } }, 'key_limit_percents'],
      [{ low_balance: null, key_limit_percents: [], channels: { email: false, telegram: false, webhook: { url: 'not a url', secret: webhookSecret } } }, 'channels.webhook.url'],
      [{ low_balance: null, key_limit_percents: [], channels: { email: false, telegram: false, webhook: { url: harness.receiver.url, secret: 'short123' } } }, 'channels.webhook.secret'],
    ];
    for (const [body, param] of cases) {
      const answer = await harness.call('PUT', '/v1/alerts', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(answer.body)).toMatchObject({ code: 'invalid_request', param: expect.stringContaining(param) });
    }
    // Nothing changed.
    expect((await harness.call('GET', '/v1/alerts')).body.data.key_limit_percents).toEqual([80, 100]);
  });

  it('sends a test alert through each channel, with a verifiable signature', async () => {
    const sent = await harness.call('POST', '/v1/alerts/test');
    expect(sent.status).toBe(200);
    expect(sent.body.data.channels).toEqual(['webhook', 'email', 'telegram']);
    await harness.deliver();
    const delivery = harness.receiver.deliveries.at(-1)!;
    expect(delivery.alert).toMatchObject({ id: sent.body.data.id, type: 'test', account_id: harness.gateway.accountId });
    expect(delivery.verified).toBe(true);
    await harness.smtp.waitForMails(ownerEmail, 1);
    const [mail] = await harness.smtp.waitForMails(adminEmail, 1);
    expect(mail.text).toContain('test alert');
    expect(harness.telegramMessages().at(-1)).toContain('test alert');
  });

  it('a forged or altered delivery does not verify', () => {
    const genuine = harness.receiver.deliveries.at(-1)!;
    const raw = JSON.stringify(genuine.alert);
    expect(verifySignature(webhookSecret, raw, genuine.signature)).toBe(true);
    expect(verifySignature('another-secret-of-the-attacker', raw, genuine.signature)).toBe(false);
    expect(verifySignature(webhookSecret, raw.replace('"test"', '"low_balance"'), genuine.signature)).toBe(false);
    const t = /t=(\d+)/.exec(genuine.signature)![1];
    expect(verifySignature(webhookSecret, raw, genuine.signature.replace(`t=${t}`, `t=${Number(t) + 1}`))).toBe(false);
    expect(verifySignature(webhookSecret, raw, undefined)).toBe(false);
  });

  it('200 concurrent paid requests across the low-balance threshold: exactly one alert on each channel', async () => {
    const before = { webhook: harness.receiver.deliveries.length, mails: harness.ownerMails().length, telegram: harness.telegramMessages().length };
    // Three sweepers on one database (as three instances would be), sweeping while the burst runs.
    const sweepers = [harness.sweep, new AlertSweep(harness.gateway.test.context, { allowPrivateUrls: true, checkMs: 3_600_000 }), new AlertSweep(harness.gateway.test.context, { allowPrivateUrls: true, checkMs: 3_600_000 })];
    let bursting = true;
    const sweeping = (async () => {
      while (bursting) {
        await Promise.all(sweepers.map((sweeper) => sweeper.runOnce()));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const statuses = await burst([harness.gateway.url], harness.gateway.key, 200, 200);
    bursting = false;
    await sweeping;
    expect(statuses.filter((status) => status === 200)).toHaveLength(200);
    await Promise.all(sweepers.map((sweeper) => sweeper.runOnce()));
    await Promise.all(sweepers.map((sweeper) => sweeper.runOnce()));
    await harness.deliver();
    const money = await readAccountMoney(harness.gateway);
    expect(money.credits - money.usage).toBe(100n * FIXED_COST);

    const lowBalance = harness.receiver.deliveries.slice(before.webhook).filter((delivery) => delivery.alert.type === 'low_balance');
    expect(lowBalance).toHaveLength(1);
    expect(lowBalance[0].verified).toBe(true);
    expect(lowBalance[0].alert.data).toMatchObject({ threshold: 0.15 });
    expect(harness.ownerMails().slice(before.mails).filter((text) => text.includes('low balance'))).toHaveLength(1);
    expect(harness.telegramMessages().slice(before.telegram).filter((text) => text.includes('low balance'))).toHaveLength(1);
  });

  it('re-arms once the balance is back above the threshold, and fires again on the next crossing', async () => {
    const lowAlerts = () => harness.receiver.deliveries.filter((delivery) => delivery.alert.type === 'low_balance').length;
    expect(lowAlerts()).toBe(1);
    const topUp = await harness.call('POST', `/admin/accounts/${harness.gateway.accountId}/credits`, { amount: Number(creditsFor(100)) }, harness.gateway.test.adminToken);
    expect(topUp.status).toBeLessThan(300);
    await harness.sweep.runOnce();
    await harness.deliver();
    expect(lowAlerts()).toBe(1);
    const statuses = await burst([harness.gateway.url], harness.gateway.key, 60, 20);
    expect(statuses.every((status) => status === 200)).toBe(true);
    await harness.sweep.runOnce();
    await harness.sweep.runOnce();
    await harness.deliver();
    expect(lowAlerts()).toBe(2);
  });

  it('one key-limit alert per configured percent, each once', async () => {
    const created = await harness.call('POST', '/v1/keys', { name: 'limited', limit: Number(creditsFor(10)) });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    const keyAlerts = () => harness.receiver.deliveries.filter((delivery) => delivery.alert.type === 'key_limit' && delivery.alert.data.key_id === created.body.data.id);
    expect((await burst([harness.gateway.url], key, 8, 8)).every((status) => status === 200)).toBe(true);
    await harness.sweep.runOnce();
    await harness.deliver();
    expect(keyAlerts().map((delivery) => delivery.alert.data.percent)).toEqual([80]);
    // 200 more at once: two fit, the rest are refused; 100 % fires once.
    const statuses = await burst([harness.gateway.url], key, 200, 200);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    for (let round = 0; round < 3; round += 1) await harness.sweep.runOnce();
    await harness.deliver();
    expect(keyAlerts().map((delivery) => delivery.alert.data.percent)).toEqual([80, 100]);
    expect(keyAlerts().every((delivery) => delivery.verified)).toBe(true);
    expect(harness.telegramMessages().filter((text) => text.includes('"limited"'))).toHaveLength(2);
    expect(harness.ownerMails().filter((text) => text.includes('"limited"'))).toHaveLength(2);
  });

  it('a receiver down for 10 minutes (500, then connection refused) gets the same alert id when it comes back', async () => {
    const { receiver, clock } = harness;
    await receiver.setMode('error');
    const sent = await harness.call('POST', '/v1/alerts/test');
    const id: string = sent.body.data.id;
    const tries = () => receiver.deliveries.filter((delivery) => delivery.alert.id === id);
    await harness.deliver();
    expect(tries()).toHaveLength(1);
    for (let elapsed = 0; elapsed < 10 * minute; elapsed += 30_000) {
      if (elapsed === 5 * minute) await receiver.setMode('down');
      clock.advance(30_000);
      await harness.deliver();
    }
    const duringOutage = tries().length;
    expect(duringOutage).toBeGreaterThan(2);
    expect(tries().every((delivery) => delivery.status === 500)).toBe(true);
    await receiver.setMode('ok');
    for (let waited = 0; waited < 30 * minute && !tries().some((delivery) => delivery.status === 204); waited += 30_000) {
      clock.advance(30_000);
      await harness.deliver();
    }
    const accepted = tries().filter((delivery) => delivery.status === 204);
    expect(accepted).toHaveLength(1);
    expect(accepted[0].verified).toBe(true);
    // Delivered: no more tries, however long we wait.
    clock.advance(60 * minute);
    await harness.deliver();
    expect(tries().filter((delivery) => delivery.status === 204)).toHaveLength(1);
    const task = await harness.gateway.test.context.store.db.selectFrom('tasks').select(['status', 'attempts']).where('provider_job_id', '=', id).where('provider', '=', 'webhook').executeTakeFirstOrThrow();
    expect(task.status).toBe('completed');
  });

  it('gives up after 24 hours', async () => {
    const { receiver, clock } = harness;
    await receiver.setMode('down');
    const sent = await harness.call('POST', '/v1/alerts/test');
    const id: string = sent.body.data.id;
    for (let hours = 0; hours < 25; hours += 0.25) {
      clock.advance(15 * minute);
      await harness.deliver();
    }
    const task = await harness.gateway.test.context.store.db.selectFrom('tasks').select(['status', 'error']).where('provider_job_id', '=', id).where('provider', '=', 'webhook').executeTakeFirstOrThrow();
    expect(task.status).toBe('failed');
    await receiver.setMode('ok');
  });

  it('deliveries stay out of the request log and the usage', async () => {
    const rows = await harness.gateway.test.context.store.db.selectFrom('requests').select('endpoint').where('account_id', '=', harness.gateway.accountId).where('endpoint', '=', '/alerts').execute();
    expect(rows).toHaveLength(0);
  });
});

describe('alerts: the public-address rule', () => {
  let harness: AlertsHarness;
  beforeAll(async () => {
    harness = await startAlertsHarness({ credits: 1, allowPrivateUrls: false });
  });
  afterAll(() => harness?.close());

  it('refuses private, loopback and plain-http webhook URLs unless alerts.allow_private_urls', async () => {
    for (const url of [harness.receiver.url, 'https://127.0.0.1/hook', 'https://10.1.2.3/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest']) {
      const answer = await harness.call('PUT', '/v1/alerts', { low_balance: null, key_limit_percents: [], channels: { email: false, telegram: false, webhook: { url, secret: webhookSecret } } });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.message).toContain('channels.webhook.url');
    }
  });

  it('checks the address again at delivery', async () => {
    const { context } = harness.gateway.test;
    context.config.alerts!.allowPrivateUrls = true;
    const put = await harness.call('PUT', '/v1/alerts', { low_balance: null, key_limit_percents: [], channels: { email: false, telegram: false, webhook: { url: harness.receiver.url, secret: webhookSecret } } });
    expect(put.status).toBe(200);
    context.config.alerts!.allowPrivateUrls = false;
    const sent = await harness.call('POST', '/v1/alerts/test');
    await harness.deliver();
    expect(harness.receiver.deliveries).toHaveLength(0);
    const task = await context.store.db.selectFrom('tasks').select(['status', 'error']).where('provider_job_id', '=', sent.body.data.id).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ status: 'failed' });
    expect(task.error).toContain('https');
  });
});
