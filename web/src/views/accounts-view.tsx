import { useEffect, useState } from 'preact/hooks';
import { callApi, query } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { navigate, routeHref, type Route } from '../route.js';
import { useApi } from '../use-api.js';
import { AccountDetail } from './account-detail.js';
import { Pager } from '../components/pager.js';

export interface AccountRow {
  id: string;
  name: string;
  created_at: string;
  balance: number;
  total_credits: number;
  total_usage: number;
  messenger_linked: boolean;
}

/**
 * The operator's account list: search by name or id (`#/accounts?search=…`), cursor paging, one
 * account's detail (`#/accounts/{id}`); Back and reload keep both.
 */
export function AccountsView({ token, route }: { token: string; route: Route }) {
  const selected = route.id;
  const search = route.params.search ?? '';
  const [draft, setDraft] = useState(search);
  // Back or a link changed the search in force: the box follows.
  useEffect(() => setDraft(search), [search]);
  const [paging, setPaging] = useState({ search, cursors: [] as string[] });
  const cursors = paging.search === search ? paging.cursors : [];
  const setCursors = (next: string[]) => setPaging({ search, cursors: next });
  const cursor = cursors[cursors.length - 1];
  const accounts = useApi(
    () => callApi<{ data: AccountRow[]; next_cursor: string | null }>(token, 'GET', `/admin/accounts${query({ search, cursor, limit: 25 })}`),
    [token, search, cursor],
  );
  if (selected) {
    return (
      <AccountDetail
        token={token}
        id={selected}
        onBack={() => {
          navigate({ view: 'accounts', params: {} });
          accounts.reload();
        }}
      />
    );
  }
  return (
    <section aria-labelledby="accounts-title">
      <h2 id="accounts-title">Accounts</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ view: 'accounts', params: { search: draft.trim() } });
        }}
      >
        <label>
          Search accounts (name or id)
          <input type="search" value={draft} onInput={(event) => setDraft((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <CreateAccountForm token={token} onCreated={accounts.reload} />
      {accounts.loading && !accounts.data && <Loading what="accounts" />}
      {accounts.error !== undefined && <ErrorMessage error={accounts.error} onRetry={accounts.reload} />}
      {accounts.data && accounts.data.data.length === 0 && <Empty>No account matches.</Empty>}
      {accounts.data && accounts.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Accounts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Balance</th>
                <th scope="col">Usage</th>
                <th scope="col">Messenger</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((account) => (
                <tr key={account.id} data-account-id={account.id}>
                  <th scope="row">
                    <a href={routeHref({ view: 'accounts', id: account.id, params: {} })}>{account.name}</a>
                  </th>
                  <td>
                    <code>{account.id}</code>
                  </td>
                  <td>{formatUsd(account.balance)}</td>
                  <td>{formatUsd(account.total_usage)}</td>
                  <td>{account.messenger_linked ? 'linked' : 'not linked'}</td>
                  <td>{formatTime(account.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursors={cursors} nextCursor={accounts.data?.next_cursor} onChange={setCursors} />
    </section>
  );
}

function CreateAccountForm({ token, onCreated }: { token: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [credits, setCredits] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const answer = await callApi<{ data: AccountRow; key: string }>(token, 'POST', '/admin/accounts', {
        name: name.trim() || undefined,
        credits: credits === '' ? undefined : Number(credits),
      });
      setCreated({ name: answer.data.name, key: answer.key });
      setName('');
      setCredits('');
      onCreated();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <details class="card">
      <summary>Create an account</summary>
      <form class="filters" aria-label="Create an account" onSubmit={submit}>
        <label>
          Account name
          <input value={name} maxLength={200} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Opening credit (USD)
          <input type="number" min="0" step="any" value={credits} onInput={(event) => setCredits((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create account</button>
      </form>
      {error !== null && <ErrorMessage error={error} />}
      {created && (
        <p role="status">
          Management key of {created.name} (shown once): <code class="secret">{created.key}</code>
        </p>
      )}
    </details>
  );
}
