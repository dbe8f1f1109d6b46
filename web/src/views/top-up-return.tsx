import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { formatUsd } from '../format.js';
import type { Landing } from '../landing.js';

const pollEveryMs = 1_000;
const pollForMs = 60_000;

interface CheckoutStatus {
  data: { id: string; status: string; paid: boolean; credited: boolean; amount: number | null };
}

/**
 * Back from Stripe Checkout. The redirect alone proves nothing: the credit lands when Stripe's
 * signed webhook does, often a moment later. So the page asks after this Checkout Session
 * (`GET /v1/credits/checkout/{id}`) every second for a minute until it is credited, then shows
 * the new balance — or says the confirmation is late.
 */
export function TopUpReturn({ token, topUp, onCredited }: { token: Credential; topUp: NonNullable<Landing['topUp']>; onCredited: () => void }) {
  const [state, setState] = useState<{ kind: 'waiting' } | { kind: 'credited'; amount: number | null; balance: number } | { kind: 'late' }>({ kind: 'waiting' });
  useEffect(() => {
    const sessionId = topUp.sessionId;
    if (topUp.outcome !== 'success' || !sessionId) return;
    const since = Date.now();
    let stopped = false;
    const check = async () => {
      if (stopped) return;
      try {
        const checkout = await callApi<CheckoutStatus>(token, 'GET', `/v1/credits/checkout/${encodeURIComponent(sessionId)}`);
        if (checkout.data.credited) {
          const credits = await callApi<{ data: { balance: number } }>(token, 'GET', '/v1/credits');
          if (stopped) return;
          setState({ kind: 'credited', amount: checkout.data.amount, balance: credits.data.balance });
          onCredited();
          return;
        }
      } catch {
        // A failed poll is retried like an unanswered one; the page only gives up at the deadline.
      }
      if (Date.now() - since > pollForMs) setState({ kind: 'late' });
      else setTimeout(() => void check(), pollEveryMs);
    };
    void check();
    return () => {
      stopped = true;
    };
  }, [token, topUp.outcome, topUp.sessionId]);

  if (topUp.outcome === 'cancel') {
    return (
      <div class="card notice" role="status" data-testid="top-up-result">
        Payment cancelled: nothing was charged.
      </div>
    );
  }
  return (
    <div class="card notice" role="status" aria-live="polite" data-testid="top-up-result">
      {state.kind === 'waiting' && 'Payment made. Waiting for Stripe to confirm it…'}
      {state.kind === 'credited' && `Payment received: ${state.amount === null ? 'the top-up is' : formatUsd(state.amount)} credited. Your balance is ${formatUsd(state.balance)}.`}
      {state.kind === 'late' && 'Stripe has not confirmed the payment yet. The credits appear here as soon as it does; reload the page in a few minutes.'}
    </div>
  );
}
