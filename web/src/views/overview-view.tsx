import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading, Stat } from '../components/status.js';
import { formatUsd } from '../format.js';
import { useApi } from '../use-api.js';

interface Credits {
  data: { total_credits: number; total_usage: number; balance: number };
}

interface OwnKey {
  data: { name: string; limit: number | null; limit_remaining: number | null; usage: number };
}

/**
 * The account's balance, and this key's own limit, usage and what is left of it (GET /v1/key):
 * after a 402 an ordinary key sees whether its limit or the account's balance ran out.
 */
export function OverviewView({ token }: { token: Credential }) {
  const credits = useApi(() => callApi<Credits>(token, 'GET', '/v1/credits'), [token]);
  const key = useApi(() => callApi<OwnKey>(token, 'GET', '/v1/key'), [token]);
  const own = key.data?.data;
  return (
    <section aria-labelledby="balance-title">
      <h2 id="balance-title">Balance and credits</h2>
      {credits.loading && !credits.data && <Loading what="balance" />}
      {credits.error !== undefined && <ErrorMessage error={credits.error} onRetry={credits.reload} />}
      {credits.data && (
        <dl class="stats" aria-label="Balance figures">
          <Stat label="Balance" value={formatUsd(credits.data.data.balance)} />
          <Stat label="Total credits" value={formatUsd(credits.data.data.total_credits)} />
          <Stat label="Total usage" value={formatUsd(credits.data.data.total_usage)} />
        </dl>
      )}
      <h3 id="own-key-title">This key{own ? `: ${own.name}` : ''}</h3>
      {key.loading && !own && <Loading what="this key" />}
      {key.error !== undefined && <ErrorMessage error={key.error} onRetry={key.reload} />}
      {own && (
        <dl class="stats" aria-labelledby="own-key-title" data-testid="own-key">
          <Stat label="Spending limit" value={own.limit === null ? 'No limit' : formatUsd(own.limit)} />
          <Stat label="Used" value={formatUsd(own.usage)} />
          <Stat label="Left of the limit" value={own.limit_remaining === null ? 'The balance applies' : formatUsd(own.limit_remaining)} />
        </dl>
      )}
      <button
        type="button"
        class="secondary"
        onClick={() => {
          credits.reload();
          key.reload();
        }}
      >
        Refresh
      </button>
    </section>
  );
}
