import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage, Loading, Stat } from '../components/status.js';
import { formatUsd } from '../format.js';
import type { Landing } from '../landing.js';
import { loadPaymentOptions } from '../payment-options.js';
import { useApi } from '../use-api.js';
import { AutoTopUpForm } from './auto-top-up-form.js';
import { RedeemForm } from './redeem-form.js';
import { TopUpForm } from './top-up-form.js';
import { TopUpReturn } from './top-up-return.js';
import { TransactionsView } from './transactions-view.js';

interface Credits {
  data: { total_credits: number; total_usage: number; balance: number };
}

/** Billing for an owner or admin (or a management key): balance, top-up, auto top-up, codes, transactions. */
export function BillingView({ token, topUp, autoTopUpEditable = true }: { token: Credential; topUp?: Landing['topUp']; autoTopUpEditable?: boolean }) {
  const credits = useApi(() => callApi<Credits>(token, 'GET', '/v1/credits'), [token]);
  const options = useApi(() => loadPaymentOptions(token), [token]);
  const [version, setVersion] = useState(0);
  const refresh = () => {
    credits.reload();
    setVersion((value) => value + 1);
  };
  const figures = credits.data?.data;
  return (
    <section aria-labelledby="billing-title">
      <h2 id="billing-title">Billing</h2>
      {topUp && <TopUpReturn token={token} topUp={topUp} onCredited={refresh} />}
      {credits.loading && !figures && <Loading what="balance" />}
      {credits.error !== undefined && <ErrorMessage error={credits.error} onRetry={credits.reload} />}
      {figures && (
        <dl class="stats" aria-label="Balance figures">
          <Stat label="Balance" value={formatUsd(figures.balance)} />
          <Stat label="Total credits" value={formatUsd(figures.total_credits)} />
          <Stat label="Total usage" value={formatUsd(figures.total_usage)} />
        </dl>
      )}
      {figures && figures.balance < 0 && (
        <p class="error" role="alert">
          The balance is below zero after a refund or a dispute: paid requests are refused until it is topped up.
        </p>
      )}
      {options.error !== undefined && <ErrorMessage error={options.error} onRetry={options.reload} />}
      {options.data === null && <p class="status empty">This gateway takes no card payments; ask the operator for credits or a code.</p>}
      {options.data && <TopUpForm token={token} options={options.data} />}
      {options.data && <AutoTopUpForm token={token} options={options.data} version={version} editable={autoTopUpEditable} />}
      <RedeemForm token={token} onRedeemed={refresh} />
      <TransactionsView token={token} version={version} />
    </section>
  );
}
