import { useState } from 'preact/hooks';
import { callApi, query } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { routeHref } from '../route.js';
import { useApi } from '../use-api.js';

interface UserRow {
  id: string;
  name: string | null;
  email: string | null;
  telegram_id: string | null;
  created_at: string;
  accounts?: Array<{ id: string; name: string; role: string }>;
}

interface AuthSettings {
  public_url: string | null;
  oidc: Array<{ id: string; name: string; issuer: string; redirect_uri: string | null }>;
  telegram: { login: boolean; bot_username: string | null };
  email: { smtp_host: string; from: string } | null;
  signup: { mode: string; bonus_credits: number; allowed_email_domains: string[] };
}

/** The people who signed in (`GET /admin/users`, found by email), and at a glance how sign-up and sign-in are set. */
export function UsersView({ token }: { token: string }) {
  const [email, setEmail] = useState('');
  const [draft, setDraft] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const users = useApi(() => callApi<{ data: UserRow[]; next_cursor: string | null }>(token, 'GET', `/admin/users${query({ email, limit: 25, cursor })}`), [token, email, cursor]);
  const settings = useApi(() => callApi<{ data: AuthSettings }>(token, 'GET', '/admin/auth-settings'), [token]);
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {settings.data && <SignUpAtAGlance settings={settings.data.data} />}
      {settings.error !== undefined && <ErrorMessage error={settings.error} onRetry={settings.reload} />}
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setEmail(draft.trim());
        }}
      >
        <label>
          Find a user by email
          <input type="search" value={draft} onInput={(event) => setDraft((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Find</button>
      </form>
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
                  <td>{user.telegram_id ?? '—'}</td>
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

function SignUpAtAGlance({ settings }: { settings: AuthSettings }) {
  const methods = [
    ...settings.oidc.map((provider) => `OpenID Connect: ${provider.name} (${provider.issuer})`),
    ...(settings.telegram.login ? [`Telegram${settings.telegram.bot_username ? ` (@${settings.telegram.bot_username})` : ''}`] : []),
    ...(settings.email ? [`Email link from ${settings.email.from} via ${settings.email.smtp_host}`] : []),
  ];
  return (
    <dl class="details card" aria-label="Sign-up settings">
      <dt>Sign-up</dt>
      <dd>{settings.signup.mode}</dd>
      <dt>Bonus</dt>
      <dd>{formatUsd(settings.signup.bonus_credits)} once per identity</dd>
      <dt>Email domains</dt>
      <dd>{settings.signup.allowed_email_domains.length ? settings.signup.allowed_email_domains.join(', ') : 'any'}</dd>
      <dt>Sign-in methods</dt>
      <dd>{methods.length ? methods.join('; ') : 'API keys only'}</dd>
      <dt>Page address</dt>
      <dd>{settings.public_url ?? 'not set (SWITCHYARD_PUBLIC_URL)'}</dd>
    </dl>
  );
}
