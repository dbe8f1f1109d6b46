import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import type { AppContext } from '../../src/app-context.js';
import { buildApp } from '../../src/app.js';
import { closeContext, createContext } from '../../src/create-context.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { dropTestSchema, uniqueSchemaName } from '../helpers/test-databases.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe/fake-stripe.js';

export interface PaymentGateways {
  fake: FakeStripe;
  simulator: Simulator;
  /** http://127.0.0.1:PORT of each instance; all share one database. */
  urls: string[];
  contexts: AppContext[];
  apps: FastifyInstance[];
  createAccount(credits?: number): Promise<{ accountId: string; key: string }>;
  close(): Promise<void>;
}

/**
 * `count` real gateways over HTTP on one database (SQLite in memory: one instance; PostgreSQL: one
 * fresh schema shared by all), the simulator as every provider, and payments through the official
 * SDK pointed at a fake Stripe.
 */
export async function startPaymentGateways(options: { databaseUrl?: string; count?: number; payments?: string; webhookToFake?: boolean } = {}): Promise<PaymentGateways> {
  const databaseUrl = options.databaseUrl ?? 'sqlite::memory:';
  const count = options.count ?? 1;
  if (!databaseUrl.startsWith('postgres') && count > 1) throw new Error('several instances share a database only on PostgreSQL');
  const fake = await startFakeStripe();
  const simulator = await startSimulator();
  const payments = options.payments ?? '';
  const yaml = `${simulatedCatalogYaml(simulator.url)}payments:\n  stripe: {secret_key: ${fake.secretKey}, webhook_secret: ${fake.webhookSecret}, api_base: "${fake.url}", auto_top_up_check_ms: 100${payments ? `, ${payments}` : ''}}\n`;
  const schema = databaseUrl.startsWith('postgres') ? uniqueSchemaName() : undefined;
  const contexts: AppContext[] = [];
  const apps: FastifyInstance[] = [];
  const urls: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const config = buildTestConfig({ databaseUrl, yaml });
    config.server.redisUrl = process.env.TEST_REDIS_URL ?? null;
    const context = await createContext(config, { logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), store: { schema, poolSize: 5 } });
    const app = await buildApp(context);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    config.server.publicUrl = url;
    contexts.push(context);
    apps.push(app);
    urls.push(url);
  }
  if (options.webhookToFake) fake.webhookUrl = `${urls[0]}/webhooks/stripe`;
  return {
    fake,
    simulator,
    urls,
    contexts,
    apps,
    async createAccount(credits = 0) {
      const response = await fetch(`${urls[0]}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
        body: JSON.stringify({ credits }),
      });
      if (response.status !== 201) throw new Error(`account creation failed: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { data: { id: string }; key: string };
      return { accountId: body.data.id, key: body.key };
    },
    async close() {
      for (const [index, app] of apps.entries()) {
        await app.close();
        await closeContext(contexts[index]);
      }
      await fake.close();
      await simulator.close();
      if (schema) await dropTestSchema(databaseUrl, schema);
    },
  };
}

/** A JSON request with a key, answering status and parsed body. */
export async function call(url: string, key: string | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A top-up through Checkout: the session made by the gateway, paid on the fake. Answers the session id and the events. */
export async function checkoutAndPay(gateways: PaymentGateways, key: string, amount: number, options: { paymentStatus?: 'paid' | 'unpaid' } = {}) {
  const created = await call(gateways.urls[0], key, 'POST', '/v1/credits/checkout', { amount });
  if (created.status !== 200) throw new Error(`checkout failed: ${created.status} ${JSON.stringify(created.body)}`);
  const sessionId = created.body.data.id as string;
  const events = await gateways.fake.pay(sessionId, options);
  return { sessionId, url: created.body.data.url as string, events };
}
