import { useState } from 'preact/hooks';
import { callApi } from '../api.js';
import { Empty, ErrorMessage, Loading, Stat } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';
import type { AccountRow } from './accounts-view.js';
import type { KeyRow } from './keys-view.js';
import { AccountPayments } from './account-payments.js';
import { AccountAudit } from './account-audit.js';
import { UsageView } from './usage-view.js';

/** One account for the operator: balance, grant credits, messenger link, keys, usage, audit log. */
export function AccountDetail({ token, id, onBack }: { token: string; id: string; onBack: () => void }) {
  const path = `/admin/accounts/${encodeURIComponent(id)}`;
  const account = useApi(() => callApi<{ data: AccountRow }>(token, 'GET', path), [token, path]);
  const keys = useApi(() => callApi<{ data: KeyRow[] }>(token, 'GET', `${path}/keys?limit=500`), [token, path]);
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [linkCode, setLinkCode] = useState<{ code: string; deep_link: string | null } | null>(null);
  // Bumped after each change made here, so the audit log below shows it.
  const [changes, setChanges] = useState(0);

  const act = async (action: () => Promise<unknown>, after: () => void) => {
    setError(null);
    try {
      await action();
      after();
      setChanges((count) => count + 1);
    } catch (caught) {
      setError(caught);
    }
  };
  const grant = (event: Event) => {
    event.preventDefault();
    void act(() => callApi(token, 'POST', `${path}/credits`, { amount: Number(amount) }), () => {
      setAmount('');
      account.reload();
    });
  };
  const data = account.data?.data;
  return (
    <section aria-labelledby="account-title">
      <button type="button" class="secondary" onClick={onBack}>
        Back to accounts
      </button>
      <h2 id="account-title">Account {data ? data.name : id}</h2>
      {account.loading && !data && <Loading what="the account" />}
      {account.error !== undefined && <ErrorMessage error={account.error} onRetry={account.reload} />}
      {error !== null && <ErrorMessage error={error} />}
      {data && (
        <>
          <dl class="stats" aria-label="Account balance">
            <Stat label="Balance" value={formatUsd(data.balance)} />
            <Stat label="Total credits" value={formatUsd(data.total_credits)} />
            <Stat label="Total usage" value={formatUsd(data.total_usage)} />
          </dl>
          <form class="card filters" aria-label="Grant credits" onSubmit={grant}>
            <label>
              Credits to grant (USD)
              <input type="number" min="0" step="any" required value={amount} onInput={(event) => setAmount((event.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" disabled={amount === '' || Number(amount) <= 0}>
              Grant credits
            </button>
          </form>
          <div class="card" role="region" aria-label="Messenger link">
            <p class="link-status">Messenger: {data.messenger_linked ? 'linked' : 'not linked'}</p>
            <div class="actions">
              {data.messenger_linked ? (
                <button type="button" class="danger" onClick={() => void act(() => callApi(token, 'DELETE', `${path}/messenger`), account.reload)}>
                  Unlink messenger
                </button>
              ) : (
                <>
                  <button type="button" onClick={() => void act(() => callApi(token, 'PUT', `${path}/messenger`, { linked: true }), account.reload)}>
                    Mark as linked
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => void act(async () => setLinkCode((await callApi<{ data: { code: string; deep_link: string | null } }>(token, 'POST', `${path}/messenger/link-code`)).data), () => undefined)}
                  >
                    Issue a link code
                  </button>
                </>
              )}
            </div>
            {linkCode && (
              <p>
                Code <code>{linkCode.code}</code>
                {linkCode.deep_link && (
                  <>
                    {' '}
                    · <a href={linkCode.deep_link} rel="noopener noreferrer" target="_blank">{linkCode.deep_link}</a>
                  </>
                )}
              </p>
            )}
          </div>
        </>
      )}
      <h3>Keys</h3>
      {keys.loading && !keys.data && <Loading what="keys" />}
      {keys.error !== undefined && <ErrorMessage error={keys.error} onRetry={keys.reload} />}
      {keys.data && keys.data.data.length === 0 && <Empty>No active keys.</Empty>}
      {keys.data && keys.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Keys of the account">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Usage</th>
                <th scope="col">Limit</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.data.map((key) => (
                <tr key={key.id}>
                  <th scope="row">
                    {key.name}
                    {key.management && <span class="badge">management</span>}
                  </th>
                  <td>
                    <code>{key.label}</code>
                  </td>
                  <td>{formatUsd(key.usage)}</td>
                  <td>{key.limit === null ? 'no limit' : formatUsd(key.limit)}</td>
                  <td>
                    <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => void act(() => callApi(token, 'DELETE', `${path}/keys/${encodeURIComponent(key.id)}`), keys.reload)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AccountPayments token={token} accountPath={path} />
      <p class="muted">Created {data ? formatTime(data.created_at) : '…'}</p>
      <UsageView token={token} path={`${path}/usage`} keysPath={`${path}/keys`} />
      <AccountAudit token={token} path={path} changes={changes} />
    </section>
  );
}
