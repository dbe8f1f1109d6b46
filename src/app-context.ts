import type { Logger } from 'pino';
import type { KeyCache } from './auth/key-cache.js';
import type { Ledger } from './billing/ledger.js';
import type { Catalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import type { Clock } from './core/clock.js';
import type { IdGenerator } from './core/ids.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { DefaultProviderCache } from './routing/default-provider-cache.js';
import type { EndpointHealth } from './routing/endpoint-health.js';
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
  defaultProviders: DefaultProviderCache;
  ledger: Ledger;
  providers: ProviderRegistry;
  health: EndpointHealth;
}
