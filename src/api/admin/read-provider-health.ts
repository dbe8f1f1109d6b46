import type { AppContext } from '../../app-context.js';
import type { ProviderConfig } from '../../config/types.js';
import { EndpointHealth } from '../../routing/endpoint-health.js';

/**
 * Provider health as this instance sees it (breakers are per instance, see routing/endpoint-health.ts):
 * each provider with its key state and whether it is routed, and each of its endpoints (provider
 * model) with circuit state, smoothed latency and the error rate of its latest calls.
 */
export function readProviderHealth(context: Pick<AppContext, 'catalog' | 'health'>): Record<string, unknown>[] {
  const { catalog, health } = context;
  const endpointsByProvider = new Map<string, Map<string, string[]>>();
  for (const model of catalog.models) {
    for (const endpoint of model.endpoints) {
      const byProviderModel = endpointsByProvider.get(endpoint.provider) ?? new Map<string, string[]>();
      byProviderModel.set(endpoint.model, [...(byProviderModel.get(endpoint.model) ?? []), model.id]);
      endpointsByProvider.set(endpoint.provider, byProviderModel);
    }
  }
  return [...catalog.providerById.values()].map((provider) => ({
    id: provider.id,
    name: provider.name,
    api: provider.api,
    has_key: provider.auth.kind !== 'none',
    key: keyStateOf(provider),
    // Whether routing sends it requests: a keyless local server (Ollama, vLLM, the simulator) is routed.
    routed: provider.enabled,
    enabled: provider.enabled,
    endpoints: [...(endpointsByProvider.get(provider.id) ?? new Map<string, string[]>()).entries()].map(([providerModel, models]) => {
      const snapshot = health.snapshot(EndpointHealth.keyOf(provider.id, providerModel));
      return {
        provider_model: providerModel,
        models,
        state: snapshot.state,
        consecutive_failures: snapshot.consecutiveFailures,
        latency_ms: snapshot.latencyMs === null ? null : Math.round(snapshot.latencyMs),
        error_rate: snapshot.errorRate,
        recent_calls: snapshot.calls,
      };
    }),
  }));
}

/**
 * `configured`: a credential is sent. `missing`: the config names a key that is unset or empty, so
 * the provider is off. `not_needed`: none is written (a local server), so none is sent.
 */
export function keyStateOf(provider: Pick<ProviderConfig, 'auth' | 'apiKeyVariable'>): 'configured' | 'missing' | 'not_needed' {
  if (provider.auth.kind !== 'none') return 'configured';
  return provider.apiKeyVariable !== undefined ? 'missing' : 'not_needed';
}
