import { useEffect } from 'preact/hooks';
import { callApi } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../use-api.js';

interface EndpointHealth {
  provider_model: string;
  models: string[];
  state: 'closed' | 'open' | 'half-open';
  consecutive_failures: number;
  latency_ms: number | null;
  error_rate: number | null;
  recent_calls: number;
}

interface ProviderHealth {
  id: string;
  name: string;
  api: string;
  /** `not_needed`: a keyless server (Ollama, vLLM, the simulator), routed like any other. */
  key: 'configured' | 'missing' | 'not_needed';
  routed: boolean;
  endpoints: EndpointHealth[];
}

const refreshMs = 5_000;

/** Circuit state, latency and error rate per endpoint, as this gateway instance observes them. */
export function HealthView({ token }: { token: string }) {
  const health = useApi(() => callApi<{ data: ProviderHealth[] }>(token, 'GET', '/admin/providers/health'), [token]);
  useEffect(() => {
    const timer = setInterval(health.reload, refreshMs);
    return () => clearInterval(timer);
  }, [health.reload]);
  const notRouted = health.data?.data.filter((provider) => !provider.routed) ?? [];
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Provider health</h2>
      <button type="button" class="secondary" onClick={health.reload}>
        Refresh
      </button>
      {health.loading && !health.data && <Loading what="provider health" />}
      {health.error !== undefined && <ErrorMessage error={health.error} onRetry={health.reload} />}
      {health.data && health.data.data.length === 0 && <Empty>No providers are configured.</Empty>}
      {notRouted.length > 0 && (
        <p class="warning" role="note">
          Not routed: {notRouted.map((provider) => `${provider.name} (${provider.key === 'missing' ? 'API key not set' : 'disabled in the config'})`).join(', ')}
        </p>
      )}
      {health.data && health.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Endpoint health">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Circuit</th>
                <th scope="col">Latency</th>
                <th scope="col">Error rate</th>
                <th scope="col">Recent calls</th>
              </tr>
            </thead>
            <tbody>
              {health.data.data.flatMap((provider) =>
                provider.endpoints.map((endpoint) => (
                  <tr key={`${provider.id}/${endpoint.provider_model}`} data-endpoint={`${provider.id}/${endpoint.provider_model}`} data-state={endpoint.state}>
                    <th scope="row">
                      {provider.name}
                      <ProviderBadges provider={provider} />
                    </th>
                    <td>
                      {endpoint.provider_model}
                      <div class="muted">{endpoint.models.join(', ')}</div>
                    </td>
                    <td>
                      <span class={`circuit ${endpoint.state}`}>{endpoint.state}</span>
                    </td>
                    <td>{endpoint.latency_ms === null ? '—' : `${endpoint.latency_ms} ms`}</td>
                    <td>{endpoint.error_rate === null ? '—' : `${Math.round(endpoint.error_rate * 100)}%`}</td>
                    <td>{endpoint.recent_calls}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** What decides whether the provider is routed: its key (set, not needed, or missing) and whether it is on. */
function ProviderBadges({ provider }: { provider: ProviderHealth }) {
  return (
    <>
      {provider.key === 'not_needed' && <span class="badge">no key needed</span>}
      {provider.key === 'missing' && <span class="badge warning">key missing</span>}
      {!provider.routed && <span class="badge warning">not routed</span>}
    </>
  );
}
