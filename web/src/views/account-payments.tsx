import { useState } from 'preact/hooks';
import { callApi, query } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { useApi } from '../use-api.js';
import { TransactionsTable, type Transaction } from './transactions-view.js';

/**
 * One account's money movements for the operator (`GET /admin/accounts/{id}/transactions`):
 * top-ups, refunds, disputes, codes, bonuses and grants, with Stripe's receipts.
 */
export function AccountPayments({ token, accountPath }: { token: string; accountPath: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useApi(
    () => callApi<{ data: Transaction[]; next_cursor: string | null }>(token, 'GET', `${accountPath}/transactions${query({ limit: 20, cursor })}`),
    [token, accountPath, cursor],
  );
  return (
    <div role="region" aria-label="Payments and refunds">
      <h3>Payments and refunds</h3>
      {list.loading && !list.data && <Loading what="payments" />}
      {list.error !== undefined && <ErrorMessage error={list.error} onRetry={list.reload} />}
      {list.data && list.data.data.length === 0 && <Empty>No payments, refunds, codes or grants yet.</Empty>}
      {list.data && list.data.data.length > 0 && <TransactionsTable rows={list.data.data} label="Transactions of the account" />}
      {list.data && (cursors.length > 0 || list.data.next_cursor) && <Pager cursors={cursors} nextCursor={list.data.next_cursor} onChange={setCursors} />}
    </div>
  );
}
