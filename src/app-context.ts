import type { Logger } from 'pino';
import type { KeyCache } from './auth/key-cache.js';
import type { Catalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import type { Clock } from './core/clock.js';
import type { IdGenerator } from './core/ids.js';
import type { Store } from './store/create-store.js';

/**
 * Everything a handler or service depends on, passed in rather than imported, so that tests
 * swap the clock, ids or store without module mocking.
 */
export interface AppContext {
  config: Config;
  catalog: Catalog;
  store: Store;
  logger: Logger;
  clock: Clock;
  createId: IdGenerator;
  keyCache: KeyCache;
}
