import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime } from '../format.js';
import { useApi } from '../use-api.js';

export interface AuditRow {
  id: string;
  at: string;
  actor: { type: 'user' | 'key' | 'admin'; id: string };
  action: string;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

/** The families of docs/api.md's list (an action's part before the dot); the API filters by one. */
const families = ['key', 'session', 'money', 'member', 'alerts', 'provider'];

const actorTypes = ['user', 'key', 'admin'];

/**
 * An account's audit log, newest first, paged, filtered by a family of actions and the actor's
 * type: the operator's (`GET /admin/accounts/{id}/audit`, `path` the account's) and an owner's or
 * admin's (`GET /v1/audit`, `path` `/v1`). Read-only, as the log is; `changes` counts the changes
 * the page made, and each reloads the list.
 */
export function AccountAudit({ token, path, changes, main = false }: { token: Credential; path: string; changes: number; main?: boolean }) {
  const [paging, setPaging] = useState({ action: '', actorType: '', cursors: [] as string[] });
  const cursor = paging.cursors[paging.cursors.length - 1];
  const params = new URLSearchParams({ limit: '25' });
  if (paging.action) params.set('action', paging.action);
  if (paging.actorType) params.set('actor_type', paging.actorType);
  if (cursor) params.set('cursor', cursor);
  const url = `${path}/audit?${params.toString()}`;
  const entries = useApi(() => callApi<{ data: AuditRow[]; next_cursor: string | null }>(token, 'GET', url), [token, url, changes]);
  return (
    <section aria-labelledby="audit-title">
      {main ? <h2 id="audit-title">Audit log</h2> : <h3 id="audit-title">Audit log</h3>}
      <div class="card filters">
        <label>
          Action
          <select value={paging.action} onChange={(event) => setPaging({ ...paging, action: (event.target as HTMLSelectElement).value, cursors: [] })}>
            <option value="">all</option>
            {families.map((family) => (
              <option key={family} value={family}>
                {family}.*
              </option>
            ))}
          </select>
        </label>
        <label>
          Actor
          <select value={paging.actorType} onChange={(event) => setPaging({ ...paging, actorType: (event.target as HTMLSelectElement).value, cursors: [] })}>
            <option value="">anyone</option>
            {actorTypes.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
      </div>
      {entries.loading && !entries.data && <Loading what="the audit log" />}
      {entries.error !== undefined && <ErrorMessage error={entries.error} onRetry={entries.reload} />}
      {entries.data && entries.data.data.length === 0 && <Empty>No entries{paging.action ? ` for ${paging.action}.*` : ''}{paging.actorType ? ` by a ${paging.actorType}` : ''}.</Empty>}
      {entries.data && entries.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Audit log of the account">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Address</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.data.data.map((entry) => (
                <tr key={entry.id} data-action={entry.action}>
                  <td>{formatTime(entry.at)}</td>
                  <th scope="row">
                    <code style={{ whiteSpace: 'nowrap' }}>{entry.action}</code>
                  </th>
                  <td>
                    {entry.actor.type} <code>{entry.actor.id}</code>
                  </td>
                  <td>{entry.target === null ? '—' : <code>{entry.target}</code>}</td>
                  <td>{entry.ip ?? '—'}</td>
                  <td>
                    <code>{Object.keys(entry.details).length === 0 ? '—' : JSON.stringify(entry.details)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursors={paging.cursors} nextCursor={entries.data?.next_cursor} onChange={(cursors) => setPaging({ ...paging, cursors })} />
    </section>
  );
}
