import type { RequestLog } from '../billing/request-log.js';
import type { Catalog } from '../catalog/catalog.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { EndpointHealth } from '../routing/endpoint-health.js';
import type { Store } from '../store/create-store.js';
import { countOpenReservations, countTasksByStatus, sumAllUncollected } from '../store/repositories/operational-counts.js';
import { Metrics } from './metrics.js';

/** What the scrape-time gauges read: the metrics' own list, since the app context holds the metrics. */
export interface MetricsSources {
  catalog: Catalog;
  health: EndpointHealth;
  store: Store;
  requestLog: RequestLog;
  providers: ProviderRegistry;
}

/** Metrics whose scrape-time gauges read the context's catalog, breakers, store and writer. */
export function createMetrics(context: () => MetricsSources): Metrics {
  return new Metrics({
    breakers() {
      const { catalog, health } = context();
      const seen = new Set<string>();
      const breakers: Array<{ provider: string; providerModel: string; state: string }> = [];
      for (const model of catalog.models) {
        for (const endpoint of model.endpoints) {
          const key = EndpointHealth.keyOf(endpoint.provider, endpoint.model);
          if (seen.has(key)) continue;
          seen.add(key);
          breakers.push({ provider: endpoint.provider, providerModel: endpoint.model, state: health.state(key) });
        }
      }
      return breakers;
    },
    openReservations: () => countOpenReservations(context().store.db),
    requestLogQueue() {
      const stats = context().requestLog.stats();
      return stats.queued + stats.waiting;
    },
    tasksByState: () => countTasksByStatus(context().store.db),
    uncollectedNano: () => sumAllUncollected(context().store.db),
    upstreamConnections: () => context().providers.connectionStats(),
  });
}
