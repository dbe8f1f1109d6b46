import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatInteger, perMillion, perThousand } from '../format.js';
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

/** The kinds of model that answer no text, as their output modality names them. */
const kinds: Record<string, string> = { embeddings: 'Embeddings', rerank: 'Rerank', moderation: 'Moderation' };

function textlessKindOf(model: Model): string | undefined {
  const kind = model.architecture.output_modalities.find((output) => output in kinds);
  return kind === undefined ? undefined : kinds[kind];
}

/** What a model is for: its kind (embeddings, rerank, moderation) or else its outputs. */
function kindOf(model: Model): string {
  return textlessKindOf(model) ?? model.architecture.output_modalities.join(', ');
}

/** A model's price per unit other than tokens: per image, per 1K searches (rerank), per second of video, per 1M characters (speech). */
function unitPrice(pricing: Record<string, string>): string {
  const set = (value: string | undefined) => value !== undefined && Number(value) !== 0;
  const parts: string[] = [];
  if (set(pricing.image)) parts.push(`$${pricing.image} / image`);
  if (set(pricing.search)) parts.push(`${perThousand(pricing.search)} / 1K searches`);
  if (set(pricing.video_second)) parts.push(`$${pricing.video_second} / second`);
  if (set(pricing.character)) parts.push(`${perMillion(pricing.character)} / 1M characters`);
  return parts.length > 0 ? parts.join(', ') : '—';
}

/**
 * The catalog with prices, as GET /models gives it: per-token prices per 1M tokens, other units
 * per their unit (a search per 1K searches). Embedding, rerank and moderation models show their
 * kind; they have no completion price.
 */
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
                <th scope="col">Kind</th>
                <th scope="col">Context</th>
                <th scope="col">Prompt / 1M</th>
                <th scope="col">Completion / 1M</th>
                <th scope="col">Unit price</th>
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
                  <td>{kindOf(model)}</td>
                  <td>{formatInteger(model.context_length)}</td>
                  <td>{perMillion(model.pricing.prompt)}</td>
                  <td>{textlessKindOf(model) !== undefined ? '—' : perMillion(model.pricing.completion)}</td>
                  <td>{unitPrice(model.pricing)}</td>
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
