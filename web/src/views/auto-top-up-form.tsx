import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';
import { parseCents } from './top-up-amount.js';

interface AutoTopUp {
  enabled: boolean;
  threshold: number | null;
  amount: number | null;
  payment_method_saved: boolean;
  last_failure: { message: string; at: string } | null;
}

/**
 * Auto top-up (`GET`/`PUT /v1/credits/auto-top-up`): when a charge takes the balance below the
 * threshold, the saved card is charged the amount. The server needs a card saved by an earlier
 * Checkout and says so when there is none; the page shows its answer as it is.
 */
export function AutoTopUpForm({ token }: { token: Credential }) {
  const current = useApi(() => callApi<{ data: AutoTopUp }>(token, 'GET', '/v1/credits/auto-top-up'), [token]);
  const [enabled, setEnabled] = useState(false);
  const [threshold, setThreshold] = useState('');
  const [amount, setAmount] = useState('');
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const data = current.data?.data;
    if (!data) return;
    setEnabled(data.enabled);
    setThreshold(data.threshold === null ? '' : String(data.threshold));
    setAmount(data.amount === null ? '' : String(data.amount));
  }, [current.data]);
  const thresholdCents = parseCents(threshold);
  const amountCents = parseCents(amount);
  const valid = !enabled || (thresholdCents !== null && amountCents !== null && amountCents > 0);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await callApi(token, 'PUT', '/v1/credits/auto-top-up', {
        enabled,
        threshold: thresholdCents === null ? null : thresholdCents / 100,
        amount: amountCents === null ? null : amountCents / 100,
      });
      setSaved(true);
      current.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const data = current.data?.data;
  return (
    <form class="card" aria-label="Auto top-up" onSubmit={submit}>
      <h3>Auto top-up</h3>
      {current.loading && !data && <Loading what="auto top-up" />}
      {current.error !== undefined && <ErrorMessage error={current.error} onRetry={current.reload} />}
      {data && (
        <p class="muted" data-testid="auto-top-up-state">
          {data.enabled && data.threshold !== null && data.amount !== null ? `On: below ${formatUsd(data.threshold)}, add ${formatUsd(data.amount)}.` : 'Off.'}
          {!data.payment_method_saved && ' It needs a card saved by a top-up first.'}
        </p>
      )}
      {data?.last_failure && (
        <p class="error" role="alert">
          The last automatic top-up failed ({formatTime(data.last_failure.at)}): {data.last_failure.message}. It was turned off.
        </p>
      )}
      <label class="checkbox">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled((event.target as HTMLInputElement).checked)} />
        Top up automatically with the card saved at checkout
      </label>
      <div class="filters">
        <label>
          When the balance falls below (USD)
          <input type="text" inputMode="decimal" value={threshold} disabled={!enabled} onInput={(event) => setThreshold((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Add (USD)
          <input type="text" inputMode="decimal" value={amount} disabled={!enabled} onInput={(event) => setAmount((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={!valid}>
          Save auto top-up
        </button>
      </div>
      {saved && <p role="status">Saved.</p>}
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
