import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';
import type { PaymentOptions } from '../payment-options.js';
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
 * threshold, the saved card is charged the amount (within the top-up bounds, on or off). The
 * server needs a card saved by an earlier Checkout and says so when there is none; the page shows
 * its answer as it is.
 */
export function AutoTopUpForm({ token, options, version, editable = true }: { token: Credential; options: PaymentOptions; version: number; editable?: boolean }) {
  // Read again when money moved (`version`): the top-up that was just credited saved the card.
  const current = useApi(() => callApi<{ data: AutoTopUp }>(token, 'GET', '/v1/credits/auto-top-up'), [token, version]);
  const [enabled, setEnabled] = useState(false);
  const [threshold, setThreshold] = useState('');
  const [amount, setAmount] = useState('');
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const data = current.data?.data;
    if (!data) return;
    setEnabled(data.enabled);
    // Never set: the lowest bound as the threshold and the first amount button as the top-up.
    setThreshold(String(data.threshold ?? options.min));
    setAmount(String(data.amount ?? options.amounts[0] ?? options.min));
  }, [current.data]);
  const thresholdCents = parseCents(threshold);
  const amountCents = parseCents(amount);
  const valid = thresholdCents !== null && amountCents !== null && amountCents >= Math.round(options.min * 100) && amountCents <= Math.round(options.max * 100);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(false);
    try {
      if (thresholdCents === null || amountCents === null) return;
      await callApi(token, 'PUT', '/v1/credits/auto-top-up', { enabled, threshold: thresholdCents / 100, amount: amountCents / 100 });
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
      {!editable && <p class="muted" data-testid="auto-top-up-owner-only">Only an owner changes auto top-up: it charges the owner's saved card.</p>}
      {editable && (
        <>
          <label class="checkbox">
            <input type="checkbox" checked={enabled} onChange={(event) => setEnabled((event.target as HTMLInputElement).checked)} />
            Top up automatically with the card saved at checkout
          </label>
          <div class="filters">
            <label>
              When the balance falls below (USD)
              <input type="text" inputMode="decimal" value={threshold} onInput={(event) => setThreshold((event.target as HTMLInputElement).value)} />
            </label>
            <label>
              Add (USD, {formatUsd(options.min)} to {formatUsd(options.max)})
              <input type="text" inputMode="decimal" value={amount} onInput={(event) => setAmount((event.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" disabled={!valid}>
              Save auto top-up
            </button>
          </div>
        </>
      )}
      {saved && <p role="status">Saved.</p>}
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
