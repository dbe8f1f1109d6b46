import { useEffect, useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { formatUsd } from '../format.js';
import type { Landing } from '../landing.js';
import type { Transaction } from './transactions-view.js';

const pollEveryMs = 1_000;
const pollForMs = 60_000;

/**
 * Back from Stripe Checkout. The redirect alone proves nothing: the credit lands when Stripe's
 * signed webhook does, usually a moment later. So the page watches the transactions for this
 * Checkout Session's top-up (its reference names the session) for a minute, then says so.
 */
export function TopUpReturn({ token, topUp, onCredited }: { token: Credential; topUp: NonNullable<Landing['topUp']>; onCredited: () => void }) {
  const [state, setState] = useState<{ kind: 'waiting' } | { kind: 'credited'; amount: number; balance: number } | { kind: 'late' }>({ kind: 'waiting' });
  useEffect(() => {
    if (topUp.outcome !== 'success') return;
    const since = Date.now();
    let stopped = false;
    const matches = (row: Transaction) =>
      row.kind === 'top_up' && (topUp.sessionId ? (row.reference ?? '').includes(topUp.sessionId) : Date.parse(row.created_at) >= since - 15 * 60_000);
    const check = async () => {
      if (stopped) return;
      try {
        const rows = await callApi<{ data: Transaction[] }>(token, 'GET', '/v1/credits/transactions?limit=20');
        const credited = rows.data.find(matches);
        if (credited) {
          const credits = await callApi<{ data: { balance: number } }>(token, 'GET', '/v1/credits');
          if (stopped) return;
          setState({ kind: 'credited', amount: credited.amount, balance: credits.data.balance });
          onCredited();
          return;
        }
      } catch {
        // A failed poll is retried like an empty one; the page only gives up at the deadline.
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
      {state.kind === 'credited' && `Payment received: ${formatUsd(state.amount)} credited. Your balance is ${formatUsd(state.balance)}.`}
      {state.kind === 'late' && 'Stripe has not confirmed the payment yet. The credits appear here as soon as it does; reload the page in a few minutes.'}
    </div>
  );
}
