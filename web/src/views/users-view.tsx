import { useState } from 'preact/hooks';
import { callApi, query } from '../api.js';
import { loadAuthProviders, type AuthProviders } from '../auth-providers.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { routeHref } from '../route.js';
import { useApi } from '../use-api.js';

interface UserRow {
  id: string;
  name: string | null;
  email: string | null;
  telegram_linked?: boolean;
  telegram_id?: string | number | null;
  created_at: string;
  accounts?: Array<{ id: string; name: string; role: string }>;
}

/** The people who signed in (`GET /admin/users`), and at a glance how sign-up and sign-in are set. */
export function UsersView({ token }: { token: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const users = useApi(() => callApi<{ data: UserRow[]; next_cursor: string | null }>(token, 'GET', `/admin/users${query({ limit: 25, cursor })}`), [token, cursor]);
  const providers = useApi(() => loadAuthProviders(), []);
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {providers.data && <SignUpAtAGlance providers={providers.data} />}
      {users.loading && !users.data && <Loading what="users" />}
      {users.error !== undefined && <ErrorMessage error={users.error} onRetry={users.reload} />}
      {users.data && users.data.data.length === 0 && <Empty>Nobody has signed in yet.</Empty>}
      {users.data && users.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Telegram</th>
                <th scope="col">Accounts</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {users.data.data.map((user) => (
                <tr key={user.id} data-user-id={user.id}>
                  <th scope="row">{user.name ?? '—'}</th>
                  <td>{user.email ?? '—'}</td>
                  <td>{user.telegram_linked || (user.telegram_id !== undefined && user.telegram_id !== null) ? 'linked' : '—'}</td>
                  <td>
                    {(user.accounts ?? []).map((account, index) => (
                      <span key={account.id}>
                        {index > 0 && ', '}
                        <a href={routeHref({ view: 'accounts', id: account.id, params: {} })}>{account.name}</a> ({account.role})
                      </span>
                    ))}
                  </td>
                  <td>{formatTime(user.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {users.data && (cursors.length > 0 || users.data.next_cursor) && <Pager cursors={cursors} nextCursor={users.data.next_cursor} onChange={setCursors} />}
    </section>
  );
}

function SignUpAtAGlance({ providers }: { providers: AuthProviders }) {
  const methods = [
    ...providers.oidc.map((provider) => `OpenID Connect: ${provider.name}`),
    ...(providers.telegram ? [`Telegram (@${providers.telegram.botUsername})`] : []),
    ...(providers.email ? ['Email link'] : []),
  ];
  return (
    <dl class="details card" aria-label="Sign-up settings">
      <dt>Sign-up</dt>
      <dd>{providers.signUpMode ?? 'not reported'}</dd>
      <dt>Sign-in methods</dt>
      <dd>{methods.length ? methods.join(', ') : 'API keys only'}</dd>
      {providers.payments && (
        <>
          <dt>Top-ups</dt>
          <dd>
            {providers.payments.amounts.map(formatUsd).join(', ')} (from {formatUsd(providers.payments.min)} to {formatUsd(providers.payments.max)})
          </dd>
        </>
      )}
    </dl>
  );
}
