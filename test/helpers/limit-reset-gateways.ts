import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { buildApp } from '../../src/app.js';
import type { AppContext } from '../../src/app-context.js';
import { closeContext, createContext } from '../../src/create-context.js';
import type { FastifyInstance } from 'fastify';
import { fixedCostCatalogYaml, readBooks } from './fixed-cost-load.js';
import { ManualClock } from './manual-clock.js';
import { buildTestConfig } from './test-config.js';
import { dropTestSchema, uniqueSchemaName } from './test-databases.js';

/**
 * Issue 49's key limits that reset (test/billing/key-limit-reset*.test.ts): `count` instances of
 * the real app over real HTTP, in this process, on one database (a fresh PostgreSQL schema, or
 * one SQLite file) and one `ManualClock`, so that the test crosses midnight, Monday and the 1st
 * by moving it. Leases follow `SWITCHYARD_LEASES` (on by default), with PostgreSQL's signals
 * between the instances. The model is the fixed-cost one (`fixed-cost-load.ts`).
 */
export interface ResetGateways {
  clock: ManualClock;
  store: AppContext['store'];
  urls: string[];
  contexts: AppContext[];
  managementKey: string;
  accountId: string;
  /** The clock moves to `iso`, and every instance beats (leases serve only after a recent beat, by the same clock). */
  moveTo(iso: string): Promise<void>;
  /** Every instance stopped (leases given back), then the account's books. */
  stopAndReadBooks(): Promise<Awaited<ReturnType<typeof readBooks>>>;
  close(): Promise<void>;
}

export async function startResetGateways(options: { databaseUrl: string; count: number; start: string; credits: number }): Promise<ResetGateways> {
  const simulator: Simulator = await startSimulator({ latencyMs: 10, replyTokens: 50 });
  const clock = new ManualClock(Date.parse(options.start));
  const schema = options.databaseUrl.startsWith('postgres') ? uniqueSchemaName() : undefined;
  const contexts: AppContext[] = [];
  const apps: FastifyInstance[] = [];
  const urls: string[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const config = buildTestConfig({ databaseUrl: options.databaseUrl, yaml: fixedCostCatalogYaml(simulator.url) });
    const context = await createContext(config, { logger: pino({ level: 'silent' }), clock, store: { schema, poolSize: 5 } });
    const app = await buildApp(context);
    await app.listen({ host: '127.0.0.1', port: 0 });
    contexts.push(context);
    apps.push(app);
    urls.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  }
  const created = await apps[0].inject({ method: 'POST', url: '/admin/accounts', headers: { authorization: 'Bearer test-admin-token' }, payload: { credits: options.credits } });
  if (created.statusCode !== 201) throw new Error(`account creation failed: ${created.statusCode} ${created.body}`);
  const account = created.json() as { data: { id: string }; key: string };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const app of apps) await app.close();
    // The first context's store reads the books afterwards: the others close first.
    for (const context of contexts.slice(1)) await closeContext(context);
    await contexts[0].requestLog.close();
    await contexts[0].ledger.stopInstance();
  };
  return {
    clock,
    store: contexts[0].store,
    urls,
    contexts,
    managementKey: account.key,
    accountId: account.data.id,
    async moveTo(iso) {
      clock.advance(Date.parse(iso) - clock.now().getTime());
      for (const context of contexts) await context.ledger.heartbeat();
    },
    async stopAndReadBooks() {
      await stop();
      return readBooks(contexts[0].store, account.data.id);
    },
    async close() {
      await stop();
      await closeContext(contexts[0]).catch(() => undefined);
      if (schema) await dropTestSchema(options.databaseUrl, schema);
      await simulator.close();
    },
  };
}

export async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
