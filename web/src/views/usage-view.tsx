import { useState } from 'preact/hooks';
import { callApi, query, type Credential } from '../api.js';
import { BarChart } from '../components/bar-chart.js';
import { Empty, ErrorMessage, Loading, Stat } from '../components/status.js';
import { formatInteger, formatUsd, utcDay } from '../format.js';
import { useApi } from '../use-api.js';

interface UsageRow {
  day?: string;
  model?: string;
  provider?: string;
  /** null on the last `by_key` row when the keys are more than the answer lists (`other_keys` of them). */
  key_id?: string | null;
  other_keys?: number;
  cost: number;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
}

interface Usage {
  data: { total: UsageRow; by_day: UsageRow[]; by_model: UsageRow[]; by_provider: UsageRow[]; by_key: UsageRow[] };
}

const groupings = [
  { field: 'by_day', name: 'day', title: 'Cost by day' },
  { field: 'by_model', name: 'model', title: 'Cost by model' },
  { field: 'by_provider', name: 'provider', title: 'Cost by provider' },
  { field: 'by_key', name: 'key_id', title: 'Cost by key' },
] as const;

/**
 * `/usage` over a chosen period (the account's own, or one account's through the admin API).
 * With `keysPath` (a key list the caller may read) the key chart names the keys it knows.
 */
export function UsageView({ token, path, keysPath }: { token: Credential; path: string; keysPath?: string }) {
  const [period, setPeriod] = useState({ from: utcDay(29), to: utcDay(0) });
  const [draft, setDraft] = useState(period);
  const usage = useApi(() => callApi<Usage>(token, 'GET', `${path}${query(period)}`), [token, path, period.from, period.to]);
  const keys = useApi(
    () => (keysPath ? callApi<{ data: Array<{ id: string; name: string }> }>(token, 'GET', `${keysPath}?limit=500`) : Promise.resolve({ data: [] })),
    [token, keysPath],
  );
  const keyNames = new Map((keys.data?.data ?? []).map((key) => [key.id, key.name]));
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPeriod({ ...draft });
        }}
      >
        <label>
          From
          <input type="date" value={draft.from} required onInput={(event) => setDraft({ ...draft, from: (event.target as HTMLInputElement).value })} />
        </label>
        <label>
          To
          <input type="date" value={draft.to} required onInput={(event) => setDraft({ ...draft, to: (event.target as HTMLInputElement).value })} />
        </label>
        <button type="submit">Show usage</button>
        <button type="button" class="secondary" onClick={usage.reload}>
          Refresh
        </button>
      </form>
      {usage.loading && !usage.data && <Loading what="usage" />}
      {usage.error !== undefined && <ErrorMessage error={usage.error} onRetry={usage.reload} />}
      {usage.data && (
        <>
          <dl class="stats" aria-label="Usage totals">
            <Stat label="Cost" value={formatUsd(usage.data.data.total.cost)} />
            <Stat label="Requests" value={formatInteger(usage.data.data.total.requests)} />
            <Stat label="Prompt tokens" value={formatInteger(usage.data.data.total.prompt_tokens)} />
            <Stat label="Completion tokens" value={formatInteger(usage.data.data.total.completion_tokens)} />
          </dl>
          {usage.data.data.total.requests === 0 ? (
            <Empty>No requests in this period yet.</Empty>
          ) : (
            <div class="charts">
              {groupings.map((grouping) => (
                <UsageChart key={grouping.field} title={grouping.title} column={grouping.name} rows={usage.data!.data[grouping.field]} keyNames={keyNames} />
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}

function UsageChart(props: { title: string; column: 'day' | 'model' | 'provider' | 'key_id'; rows: UsageRow[]; keyNames: Map<string, string> }) {
  const { title, column, rows, keyNames } = props;
  const id = `usage-${column}`;
  // Keys are named where the name is known (a revoked key is no longer listed: its id stays).
  const labelOf = (row: UsageRow) => {
    if (column !== 'key_id') return String(row[column]);
    return row.key_id === null ? `${formatInteger(row.other_keys ?? 0)} other keys` : (keyNames.get(String(row.key_id)) ?? String(row.key_id));
  };
  return (
    <figure class="card" aria-labelledby={`${id}-title`} data-grouping={column}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <BarChart title={title} labels={rows.map(labelOf)} values={rows.map((row) => row.cost)} />
      <div class="table-scroll">
        <table aria-label={`${title} (table)`}>
          <thead>
            <tr>
              <th scope="col">{column === 'key_id' ? 'key' : column}</th>
              <th scope="col">Requests</th>
              <th scope="col">Prompt tokens</th>
              <th scope="col">Completion tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row[column] ?? 'other'}>
                <th scope="row">
                  {labelOf(row)}
                  {column === 'key_id' && row.key_id !== null && labelOf(row) !== row.key_id && <div class="muted">{row.key_id}</div>}
                </th>
                <td>{formatInteger(row.requests)}</td>
                <td>{formatInteger(row.prompt_tokens)}</td>
                <td>{formatInteger(row.completion_tokens)}</td>
                <td>{formatUsd(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
