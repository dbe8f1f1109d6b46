import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import type { AppContext } from '../../src/app-context.js';
import { buildApp } from '../../src/app.js';
import { alertSweepOfContext, closeContext, createContext } from '../../src/create-context.js';
import { upsertMessengerLink } from '../../src/store/repositories/messenger-links.js';
import { startFakeTelegramBotApi, type FakeTelegramBotApi } from '../helpers/fake-telegram-bot-api.js';
import { burst, creditsFor, fixedCostCatalogYaml, FIXED_COST, readBooks } from '../helpers/fixed-cost-load.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/start-smtp-server.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { dropTestSchema, uniqueSchemaName } from '../helpers/test-databases.js';
import { call } from '../payments/start-payment-gateways.js';
import { startWebhookReceiver, type WebhookReceiver } from './start-webhook-receiver.js';

const postgres = process.env.TEST_DATABASE_URL;
const secret = 'whsec_postgres-alerts-0123456789';
const chatId = 777_002;
if (!postgres) process.stdout.write('PostgreSQL alerts test SKIPPED: set TEST_DATABASE_URL=postgres://… to run it\n');

/** Contract §8 on PostgreSQL: three instances (leases on), each sweeping, one alert per crossing per channel. */
describe.skipIf(!postgres)('alerts on PostgreSQL with 3 instances', () => {
  const schema = uniqueSchemaName();
  const contexts: AppContext[] = [];
  const apps: FastifyInstance[] = [];
  const urls: string[] = [];
  let simulator: Simulator;
  let receiver: WebhookReceiver;
  let smtp: TestSmtpServer;
  let bot: FakeTelegramBotApi;

  beforeAll(async () => {
    [simulator, receiver, smtp, bot] = await Promise.all([startSimulator(), startWebhookReceiver(secret), startSmtpServer(), startFakeTelegramBotApi()]);
    for (let index = 0; index < 3; index += 1) {
      const config = buildTestConfig({ databaseUrl: postgres, yaml: `${fixedCostCatalogYaml(simulator.url)}\nalerts: {allow_private_urls: true, check_ms: 3600000}\n` });
      config.server.redisUrl = process.env.TEST_REDIS_URL ?? null;
      config.server.telegram = { botToken: '123456789:AApg-alerts-token', webhookSecret: 'telegram-secret', apiBaseUrl: bot.url, botUsername: 'switchyard_test_bot' };
      config.auth = { oidc: [], telegram: { login: false }, ...config.auth, email: { smtpUrl: smtp.url, from: 'Switchyard <alerts@switchyard.test>' } };
      const context = await createContext(config, { logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), store: { schema, poolSize: 5 } });
      const app = await buildApp(context);
      await app.listen({ host: '127.0.0.1', port: 0 });
      contexts.push(context);
      apps.push(app);
      urls.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    for (const [index, app] of apps.entries()) {
      await app.close();
      await closeContext(contexts[index]);
    }
    await Promise.all([simulator?.close(), receiver?.close(), smtp?.close(), bot?.close()]);
    if (postgres) await dropTestSchema(postgres, schema);
  });

  it('200 concurrent requests over 3 instances across a threshold or a key limit: one alert per crossing on each channel', async () => {
    const created = await call(urls[0], 'test-admin-token', 'POST', '/admin/accounts', { credits: Number(creditsFor(300)) });
    const { key } = created.body as { key: string };
    const accountId: string = created.body.data.id;
    expect((await call(urls[0], 'test-admin-token', 'POST', `/admin/accounts/${accountId}/members`, { email: 'owner@pg-alerts.test', role: 'owner' })).status).toBe(201);
    await upsertMessengerLink(contexts[0].store.db, { accountId, messenger: 'telegram', externalId: String(chatId), linkedAt: new Date().toISOString() });
    const put = await call(urls[1], key, 'PUT', '/v1/alerts', { low_balance: { threshold: Number(creditsFor(150)) }, key_limit_percents: [], channels: { email: true, telegram: true, webhook: { url: receiver.url, secret } } });
    expect(put.status).toBe(200);

    let bursting = true;
    const sweeps = contexts.map((context) => alertSweepOfContext(context)!);
    const sweeping = (async () => {
      while (bursting) {
        await Promise.all(sweeps.map((sweep) => sweep.runOnce()));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const statuses = await burst(urls, key, 200, 200);
    bursting = false;
    await sweeping;
    expect(statuses.filter((status) => status === 200)).toHaveLength(200);
    // Every instance's leases back, so the books show every charge, then each sweeps twice more.
    for (const context of contexts) await context.ledger.recallLeases();
    const books = await readBooks(contexts[0].store, accountId);
    expect(books.credits - books.usage).toBe(100n * FIXED_COST);
    for (let round = 0; round < 2; round += 1) await Promise.all(sweeps.map((sweep) => sweep.runOnce()));
    for (let round = 0; round < 3; round += 1) await Promise.all(contexts.map((context) => context.tasks.runOnce()));

    const webhooks = receiver.deliveries.filter((delivery) => delivery.alert.type === 'low_balance' && delivery.alert.account_id === accountId);
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0].verified).toBe(true);
    expect(smtp.mails.filter((mail) => mail.to.includes('owner@pg-alerts.test') && mail.text.includes('low balance'))).toHaveLength(1);
    expect(bot.calls.filter((entry) => entry.body.chat_id === chatId && String(entry.body.text).includes('low balance'))).toHaveLength(1);

    // A key worth 10 requests, 200 at once over the instances: 80 % and 100 %, each once.
    expect((await call(urls[2], key, 'PUT', '/v1/alerts', { ...put.body.data, key_limit_percents: [80, 100], channels: { ...put.body.data.channels, webhook: { url: receiver.url } } })).status).toBe(200);
    const limited = await call(urls[0], key, 'POST', '/v1/keys', { name: 'pg-limited', limit: Number(creditsFor(10)) });
    expect(limited.status).toBe(201);
    bursting = true;
    const sweepingKeys = (async () => {
      while (bursting) {
        await Promise.all(sweeps.map((sweep) => sweep.runOnce()));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const limitedStatuses = await burst(urls, limited.body.key, 200, 200);
    bursting = false;
    await sweepingKeys;
    expect(limitedStatuses.filter((status) => status === 200)).toHaveLength(10);
    for (const context of contexts) await context.ledger.recallLeases();
    for (let round = 0; round < 2; round += 1) await Promise.all(sweeps.map((sweep) => sweep.runOnce()));
    for (let round = 0; round < 3; round += 1) await Promise.all(contexts.map((context) => context.tasks.runOnce()));
    const keyAlerts = receiver.deliveries.filter((delivery) => delivery.alert.type === 'key_limit' && delivery.alert.data.key_id === limited.body.data.id);
    expect(keyAlerts.map((delivery) => delivery.alert.data.percent).sort()).toEqual([100, 80]);
    expect(keyAlerts.every((delivery) => delivery.verified)).toBe(true);
    expect(smtp.mails.filter((mail) => mail.text.includes('"pg-limited"'))).toHaveLength(2);
    expect(bot.calls.filter((entry) => String(entry.body.text).includes('"pg-limited"'))).toHaveLength(2);
  });
});
