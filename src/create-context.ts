import pino, { type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import { KeyCache } from './auth/key-cache.js';
import { Ledger } from './billing/ledger.js';
import { buildCatalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import { systemClock, type Clock } from './core/clock.js';
import { createId } from './core/ids.js';
import { ProviderRegistry } from './providers/registry.js';
import { DefaultProviderCache } from './routing/default-provider-cache.js';
import { EndpointHealth } from './routing/endpoint-health.js';
import { createStore, migrateToLatest, type StoreOptions } from './store/create-store.js';

export interface ContextOptions {
  logger?: Logger;
  clock?: Clock;
  store?: StoreOptions;
}

/** Opens the store (migrating it) and assembles the app context from a loaded config. */
export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const store = await createStore(config.server.databaseUrl, options.store);
  await migrateToLatest(store);
  const clock = options.clock ?? systemClock;
  return {
    config,
    catalog: buildCatalog(config),
    store,
    logger: options.logger ?? createLogger(config.server.logLevel),
    clock,
    createId,
    // Short enough that a revocation on another instance takes effect within seconds.
    keyCache: new KeyCache(10_000, 100_000),
    defaultProviders: new DefaultProviderCache(store.db, 10_000),
    ledger: new Ledger({ store, clock, createId }),
    providers: new ProviderRegistry(),
    health: new EndpointHealth({ failureThreshold: 5, coolDownMs: 30_000 }),
  };
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Belt and braces: nothing that could hold a key is ever serialised.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]', 'key', 'apiKey'], censor: '[redacted]' },
  });
}

export async function closeContext(context: AppContext): Promise<void> {
  await context.providers.close();
  await context.store.close();
}
