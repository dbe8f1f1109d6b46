import pino, { type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import { KeyCache } from './auth/key-cache.js';
import { buildCatalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import { systemClock, type Clock } from './core/clock.js';
import { createId } from './core/ids.js';
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
  return {
    config,
    catalog: buildCatalog(config),
    store,
    logger: options.logger ?? createLogger(config.server.logLevel),
    clock: options.clock ?? systemClock,
    createId,
    // Short enough that a revocation on another instance takes effect within seconds.
    keyCache: new KeyCache(10_000, 100_000),
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
  await context.store.close();
}
