import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { perMillion } from '../format.js';
import { useApi } from '../use-api.js';

interface ProviderOption {
  provider: string;
  provider_name: string;
  pricing: { prompt: string; completion: string };
}

interface ModelProviders {
  model: string;
  default_provider: string | null;
  providers: ProviderOption[];
}

/** The account's default provider per model (GET and PATCH /providers). */
export function ProvidersView({ token }: { token: Credential }) {
  const providers = useApi(() => callApi<{ data: ModelProviders[] }>(token, 'GET', '/v1/providers'), [token]);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const choose = async (model: string, provider: string) => {
    setError(null);
    setSaved(null);
    try {
      await callApi(token, 'PATCH', '/v1/providers', { model, provider: provider === '' ? null : provider });
      setSaved(model);
      providers.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const choices = providers.data?.data.filter((row) => row.providers.length > 0) ?? [];
  return (
    <section aria-labelledby="providers-title">
      <h2 id="providers-title">Default provider per model</h2>
      <p class="muted">Requests for a model try its default provider first, then the healthy ones by price.</p>
      {error !== null && <ErrorMessage error={error} />}
      {saved && (
        <p class="status" role="status">
          Saved the default provider of {saved}.
        </p>
      )}
      {providers.loading && !providers.data && <Loading what="providers" />}
      {providers.error !== undefined && <ErrorMessage error={providers.error} onRetry={providers.reload} />}
      {providers.data && choices.length === 0 && <Empty>No model has a configured provider.</Empty>}
      {choices.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Default providers">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Default provider</th>
                <th scope="col">Options (prompt / completion per 1M)</th>
              </tr>
            </thead>
            <tbody>
              {choices.map((row) => (
                <tr key={row.model}>
                  <th scope="row">{row.model}</th>
                  <td>
                    <select aria-label={`Default provider for ${row.model}`} value={row.default_provider ?? ''} onChange={(event) => void choose(row.model, (event.target as HTMLSelectElement).value)}>
                      <option value="">automatic</option>
                      {row.providers.map((option) => (
                        <option key={option.provider} value={option.provider}>
                          {option.provider_name}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    {row.providers.map((option) => (
                      <div key={option.provider}>
                        {option.provider_name}: {perMillion(option.pricing.prompt)} / {perMillion(option.pricing.completion)}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
