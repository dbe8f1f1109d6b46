import { useState } from 'preact/hooks';
import { callApi, query, type Credential } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';

export interface Transaction {
  id: string;
  created_at: string;
  kind: string;
  amount: number;
  reference: string | null;
  receipt_url: string | null;
}

const kindLabels: Record<string, string> = {
  top_up: 'Top-up',
  auto_top_up: 'Auto top-up',
  refund: 'Refund',
  dispute: 'Dispute',
  dispute_won: 'Dispute won',
  redemption: 'Code redeemed',
  signup_bonus: 'Sign-up bonus',
  grant: 'Credits from the operator',
};

export const transactionKind = (kind: string) => kindLabels[kind] ?? kind;

const pageSize = 20;

/** Every money movement of the account (`GET /v1/credits/transactions`), newest first, with Stripe's receipts. */
export function TransactionsView({ token, version }: { token: Credential; version: number }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useApi(
    () => callApi<{ data: Transaction[]; next_cursor: string | null }>(token, 'GET', `/v1/credits/transactions${query({ limit: pageSize, cursor })}`),
    [token, cursor, version],
  );
  return (
    <section aria-labelledby="transactions-title">
      <h3 id="transactions-title">Transactions</h3>
      {list.loading && !list.data && <Loading what="transactions" />}
      {list.error !== undefined && <ErrorMessage error={list.error} onRetry={list.reload} />}
      {list.data && list.data.data.length === 0 && <Empty>No payments, codes or grants yet.</Empty>}
      {list.data && list.data.data.length > 0 && <TransactionsTable rows={list.data.data} label="Transactions" />}
      {list.data && (cursors.length > 0 || list.data.next_cursor) && <Pager cursors={cursors} nextCursor={list.data.next_cursor} onChange={setCursors} />}
    </section>
  );
}

/** The rows as a table (also used by the operator console for one account's payments). */
export function TransactionsTable({ rows, label }: { rows: Transaction[]; label: string }) {
  return (
    <div class="table-scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Amount</th>
            <th scope="col">Receipt</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-transaction-id={row.id} data-kind={row.kind}>
              <td>{formatTime(row.created_at)}</td>
              <td>
                {transactionKind(row.kind)}
                {row.reference && <span class="muted reference"> {row.reference}</span>}
              </td>
              <td class={row.amount < 0 ? 'amount negative' : 'amount'}>{formatUsd(row.amount)}</td>
              <td>
                {row.receipt_url ? (
                  <a href={row.receipt_url} target="_blank" rel="noopener noreferrer" aria-label={`Receipt for ${transactionKind(row.kind)} of ${formatUsd(row.amount)}`}>
                    Receipt
                  </a>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
