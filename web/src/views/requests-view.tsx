import { useState } from 'preact/hooks';
import { callApi, query, type Credential } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatInteger, formatTime, formatUsd } from '../format.js';
import { navigate, routeHref, type Route } from '../route.js';
import { useApi } from '../use-api.js';
import { RequestDetails } from './request-details.js';
import { RequestFiltersForm } from './request-filters.js';
import { filtersFrom, matchesFilters, type RequestFilters, type RequestRow } from './request-row.js';

const pageSize = 20;

/**
 * The request log with the API's filters, cursor paging, and one request's details. The filters
 * and the open request live in the URL (`#/requests/{id}?model=…`): a reload keeps them, Back
 * undoes them.
 */
export function RequestsView({ token, management, route }: { token: Credential; management: boolean; route: Route }) {
  const filters = filtersFrom(route.params);
  const signature = JSON.stringify(filters);
  // Pages opened under these filters; other filters start again at the first page.
  const [paging, setPaging] = useState<{ signature: string; cursors: string[] }>({ signature, cursors: [] });
  const cursors = paging.signature === signature ? paging.cursors : [];
  const cursor = cursors[cursors.length - 1];
  const page = useApi(
    () => callApi<{ data: RequestRow[]; next_cursor: string | null }>(token, 'GET', `/v1/requests${query({ ...filters, limit: pageSize, cursor })}`),
    [token, signature, cursor],
  );
  const selected = route.id;
  const detail = useApi(
    () => (selected ? callApi<{ data: RequestRow }>(token, 'GET', `/v1/requests/${encodeURIComponent(selected)}`) : Promise.resolve(undefined)),
    [token, selected],
  );
  const open = (id: string | undefined, next: RequestFilters) => navigate({ view: 'requests', id, params: { ...next } });
  const apply = (next: RequestFilters) => {
    // An open request the new filters exclude closes with them.
    const shown = detail.data?.data;
    open(selected && shown?.id === selected && matchesFilters(shown, next) ? selected : undefined, next);
  };
  return (
    <section aria-labelledby="requests-title">
      <h2 id="requests-title">Requests</h2>
      <RequestFiltersForm token={token} management={management} applied={filters} onApply={apply} onRefresh={page.reload} />
      {page.loading && !page.data && <Loading what="requests" />}
      {page.error !== undefined && <ErrorMessage error={page.error} onRetry={page.reload} />}
      {page.data && page.data.data.length === 0 && <Empty>No requests match.</Empty>}
      {page.data && page.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Request log">
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Model</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
                <th scope="col">Tokens</th>
                <th scope="col">Cost</th>
                <th scope="col">Latency</th>
                <th scope="col">
                  <span class="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((row) => (
                <tr key={row.id} data-request-id={row.id} aria-current={row.id === selected ? 'true' : undefined}>
                  <td>{formatTime(row.created_at)}</td>
                  <td>{row.model}</td>
                  <td>{row.provider ?? '—'}</td>
                  <td>
                    {row.status}
                    {row.error && <div class="muted request-error-code">{row.error.code}</div>}
                  </td>
                  <td>{formatInteger(row.usage.total_tokens)}</td>
                  <td>{formatUsd(row.cost)}</td>
                  <td>{row.latency_ms === null ? '—' : `${row.latency_ms} ms`}</td>
                  <td>
                    <a href={routeHref({ view: 'requests', id: row.id, params: { ...filters } })} aria-label={`Details of ${row.id}`}>
                      Details
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursors={cursors} nextCursor={page.data?.next_cursor} onChange={(next) => setPaging({ signature, cursors: next })} />
      {selected && <RequestDetails id={selected} detail={detail} onClose={() => open(undefined, filters)} />}
    </section>
  );
}
