import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { AppContext } from '../../src/app-context.js';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config/types.js';
import type { Clock } from '../../src/core/clock.js';
import { closeContext, createContext } from '../../src/create-context.js';
import type { Tracing } from '../../src/telemetry/create-tracing.js';
import { buildTestConfig } from './test-config.js';
import { dropTestSchema, uniqueSchemaName } from './test-databases.js';

export interface TestApp {
  app: FastifyInstance;
  context: AppContext;
  adminToken: string;
  /** Creates an account through the admin API; returns its id and management key. */
  createAccount(options?: { name?: string; credits?: number }): Promise<{ accountId: string; key: string }>;
  close(): Promise<void>;
}

/**
 * The real application on a real database: a private in-memory SQLite, or a fresh schema in the
 * PostgreSQL database at `databaseUrl` (dropped on close).
 */
export async function startTestApp(options: { databaseUrl?: string; config?: Config; clock?: Clock; logger?: Logger; tracing?: Tracing | null } = {}): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? 'sqlite::memory:';
  const config = options.config ?? buildTestConfig({ databaseUrl });
  config.server.databaseUrl = databaseUrl;
  const schema = databaseUrl.startsWith('postgres') ? uniqueSchemaName() : undefined;
  const context = await createContext(config, { logger: options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), clock: options.clock, store: { schema, poolSize: 5 }, tracing: options.tracing });
  const app = await buildApp(context);
  const adminToken = config.server.adminToken ?? '';
  return {
    app,
    context,
    adminToken,
    async createAccount(accountOptions = {}) {
      const response = await app.inject({
        method: 'POST',
        url: '/admin/accounts',
        headers: { authorization: `Bearer ${adminToken}` },
        payload: accountOptions,
      });
      if (response.statusCode !== 201) throw new Error(`account creation failed: ${response.statusCode} ${response.body}`);
      const body = response.json() as { data: { id: string }; key: string };
      return { accountId: body.data.id, key: body.key };
    },
    async close() {
      await app.close();
      await closeContext(context);
      if (schema) await dropTestSchema(databaseUrl, schema);
    },
  };
}
