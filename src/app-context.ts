import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { KeyCache } from './auth/key-cache.js';
import type { Ledger } from './billing/ledger.js';
import type { RequestLog } from './billing/request-log.js';
import type { Catalog } from './catalog/catalog.js';
import type { Config } from './config/types.js';
import type { Clock } from './core/clock.js';
import type { IdGenerator } from './core/ids.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { DefaultProviderCache } from './routing/default-provider-cache.js';
import type { Metrics } from './metrics/metrics.js';
import type { ServerLifecycle } from './lifecycle/server-lifecycle.js';
import type { EndpointHealth } from './routing/endpoint-health.js';
import type { PromptCacheAffinity } from './routing/prompt-cache-affinity.js';
import type { Counters } from './store/counters.js';
import type { ResponseCache } from './cache/response-cache.js';
import type { Store } from './store/create-store.js';
import type { TaskEngine } from './tasks/task-engine.js';

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
  /** Batched writer of the request log and its usage rollups. */
  requestLog: RequestLog;
  providers: ProviderRegistry;
  health: EndpointHealth;
  /** Which endpoint served a `prompt_cache_key` recently (sticky routing for cache hits). */
  promptCacheAffinity: PromptCacheAffinity;
  counters: Counters;
  /** Durable asynchronous tasks (videos, slow media jobs): create, find, and the polling worker. */
  tasks: TaskEngine<AppContext>;
  /** Prometheus metrics of this instance (`GET /metrics`). */
  metrics: Metrics;
  /** Draining after SIGTERM (`/ready` 503, `Connection: close` on every answer). */
  lifecycle: ServerLifecycle;
  /** OpenTelemetry tracer when tracing is on (`OTEL_EXPORTER_OTLP_ENDPOINT`); null builds no spans. */
  tracer: Tracer | null;
  /** The response cache (contract §9, src/cache/README.md); null when the config's `cache:` is absent or off. */
  responseCache: ResponseCache | null;
}
