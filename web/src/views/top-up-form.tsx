import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import type { PaymentOptions } from '../payment-options.js';
import { rememberAccount } from '../person-session.js';
import { ErrorMessage } from '../components/status.js';
import { formatUsd } from '../format.js';
import { parseCents } from './top-up-amount.js';

const centsOf = (usd: number) => Math.round(usd * 100);

/**
 * A top-up through Stripe Checkout: one of the operator's amounts or one typed within min…max;
 * `POST /v1/credits/checkout` answers the Checkout page's URL and the browser goes there. Stripe
 * sends it back to this page (landing.ts reads the return).
 */
export function TopUpForm({ token, options }: { token: Credential; options: PaymentOptions }) {
  const [custom, setCustom] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const customCents = parseCents(custom);
  const customValid = customCents !== null && customCents >= centsOf(options.min) && customCents <= centsOf(options.max);

  const pay = async (amount: number) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await callApi<{ data: { id: string; url: string } }>(token, 'POST', '/v1/credits/checkout', { amount });
      // Back from Checkout, this tab reopens the account that paid, whichever it would choose by default.
      if (typeof token !== 'string') rememberAccount(token.accountId);
      location.assign(answer.data.url);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  const fee =
    options.feePercent > 0 || options.feeFixed > 0
      ? `A payment fee of ${options.feePercent > 0 ? `${options.feePercent}%` : ''}${options.feePercent > 0 && options.feeFixed > 0 ? ' + ' : ''}${options.feeFixed > 0 ? formatUsd(options.feeFixed) : ''} is added at checkout; the credits are the amount you choose.`
      : null;
  return (
    <div class="card" role="region" aria-label="Top up">
      <h3>Top up</h3>
      <div class="amounts">
        {options.amounts.map((amount) => (
          <button key={amount} type="button" disabled={busy} onClick={() => void pay(amount)} aria-label={`Top up ${formatUsd(amount)}`}>
            {formatUsd(amount)}
          </button>
        ))}
      </div>
      <form
        class="filters"
        aria-label="Top up another amount"
        onSubmit={(event) => {
          event.preventDefault();
          if (customValid) void pay(customCents / 100);
        }}
      >
        <label>
          Another amount (USD, {formatUsd(options.min)} to {formatUsd(options.max)})
          <input type="text" inputMode="decimal" value={custom} onInput={(event) => setCustom((event.target as HTMLInputElement).value)} aria-invalid={custom !== '' && !customValid} />
        </label>
        <button type="submit" disabled={busy || !customValid}>
          Pay with card
        </button>
      </form>
      {custom !== '' && !customValid && (
        <p class="muted" role="status">
          Enter an amount from {formatUsd(options.min)} to {formatUsd(options.max)}, in dollars and cents.
        </p>
      )}
      {fee && <p class="muted">{fee}</p>}
      {busy && <p role="status">Opening the secure payment page…</p>}
      {error !== null && <ErrorMessage error={error} />}
    </div>
  );
}
