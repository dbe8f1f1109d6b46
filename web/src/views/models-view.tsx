import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatInteger, perMillion } from '../format.js';
import { useApi } from '../use-api.js';

interface Model {
  id: string;
  name: string;
  free: boolean;
  context_length: number | null;
  architecture: { input_modalities: string[]; output_modalities: string[] };
  pricing: Record<string, string>;
  endpoints: string[];
}

/** The catalog with prices, as GET /models gives it (per-token prices shown per 1M tokens). */
export function ModelsView({ token }: { token: Credential }) {
  const models = useApi(() => callApi<{ data: Model[] }>(token, 'GET', '/v1/models'), [token]);
  const [search, setSearch] = useState('');
  const shown = (models.data?.data ?? []).filter((model) => `${model.id} ${model.name}`.toLowerCase().includes(search.toLowerCase()));
  return (
    <section aria-labelledby="models-title">
      <h2 id="models-title">Models and prices</h2>
      <label class="search">
        Search models
        <input type="search" value={search} onInput={(event) => setSearch((event.target as HTMLInputElement).value)} />
      </label>
      {models.loading && !models.data && <Loading what="models" />}
      {models.error !== undefined && <ErrorMessage error={models.error} onRetry={models.reload} />}
      {models.data && shown.length === 0 && <Empty>No model matches.</Empty>}
      {shown.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Model catalog">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Output</th>
                <th scope="col">Context</th>
                <th scope="col">Prompt / 1M</th>
                <th scope="col">Completion / 1M</th>
                <th scope="col">Per image</th>
                <th scope="col">Endpoints</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((model) => (
                <tr key={model.id}>
                  <th scope="row">
                    {model.id}
                    {model.free && <span class="badge">free</span>}
                    <div class="muted">{model.name}</div>
                  </th>
                  <td>{model.architecture.output_modalities.join(', ')}</td>
                  <td>{formatInteger(model.context_length)}</td>
                  <td>{perMillion(model.pricing.prompt)}</td>
                  <td>{perMillion(model.pricing.completion)}</td>
                  <td>{model.pricing.image && model.pricing.image !== '0' ? `$${model.pricing.image}` : '—'}</td>
                  <td>{model.endpoints.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
