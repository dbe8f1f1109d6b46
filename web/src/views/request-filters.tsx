import { useLayoutEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { useApi } from '../use-api.js';
import type { RequestFilters } from './request-row.js';

interface Choice {
  value: string;
  label: string;
}

const statuses = ['completed', 'failed', 'aborted', 'refused'];

/**
 * The log's filters as choices filled from the account's data: models and providers from the
 * catalog (GET /v1/providers), keys from the key list (management keys only). A value the URL
 * names that the lists lack (a model since removed) stays choosable, so the form shows the filter
 * in force.
 */
export function RequestFiltersForm(props: { token: Credential; management: boolean; applied: RequestFilters; onApply: (filters: RequestFilters) => void; onRefresh: () => void }) {
  const { token, management, applied } = props;
  const [draft, setDraft] = useState(applied);
  // Back, Forward or a link changed the filters in force: the form follows — in a layout effect,
  // right after the render, so that a choice made just after applying is not overwritten by a
  // late (passive) effect carrying the filters just applied.
  useLayoutEffect(() => setDraft(applied), [JSON.stringify(applied)]);
  const catalog = useApi(() => callApi<{ data: Array<{ model: string; providers: Array<{ provider: string; provider_name: string }> }> }>(token, 'GET', '/v1/providers'), [token]);
  const keys = useApi(() => (management ? callApi<{ data: Array<{ id: string; name: string }> }>(token, 'GET', '/v1/keys?limit=500') : Promise.resolve({ data: [] })), [token, management]);
  const models = (catalog.data?.data ?? []).map((row) => ({ value: row.model, label: row.model }));
  const providers = new Map<string, string>();
  for (const row of catalog.data?.data ?? []) for (const option of row.providers) providers.set(option.provider, option.provider_name);
  const select = (name: keyof RequestFilters, label: string, choices: Choice[]) => {
    const known = choices.some((choice) => choice.value === draft[name]) || draft[name] === '';
    const all = known ? choices : [...choices, { value: draft[name], label: draft[name] }];
    return (
      <label>
        {label}
        {/* Named by aria-label: a wrapping label alone would read the chosen option into the name ("Model any"). */}
        <select aria-label={label} value={draft[name]} onChange={(event) => setDraft({ ...draft, [name]: (event.target as HTMLSelectElement).value })}>
          <option value="">any</option>
          {all.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
    );
  };
  const date = (name: 'from' | 'to', label: string) => (
    <label>
      {label}
      <input type="date" value={draft[name]} onInput={(event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value })} />
    </label>
  );
  return (
    <form
      class="filters"
      aria-label="Request filters"
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply({ ...draft });
      }}
    >
      {select('model', 'Model', models)}
      {select('provider', 'Provider', [...providers].map(([value, label]) => ({ value, label: `${label} (${value})` })))}
      {select('status', 'Status', statuses.map((status) => ({ value: status, label: status })))}
      {management && select('key_id', 'Key', (keys.data?.data ?? []).map((key) => ({ value: key.id, label: key.name })))}
      {date('from', 'From')}
      {date('to', 'To')}
      <button type="submit">Filter</button>
      <button type="button" class="secondary" onClick={props.onRefresh}>
        Refresh
      </button>
    </form>
  );
}
