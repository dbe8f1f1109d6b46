import { useEffect, useRef, useState } from 'preact/hooks';
import { callApi, query } from '../api.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatInteger, formatTime, formatUsd } from '../format.js';
import { useApi } from '../use-api.js';

export interface RedemptionBatch {
  id: string;
  amount: number;
  count: number;
  redeemed: number;
  note: string | null;
  expires_at: string | null;
  created_at: string;
}

/**
 * The operator's redemption codes: make a batch (its codes are shown here once, to copy or
 * download as CSV, and kept by the gateway only as hashes) and list batches with how many of
 * their codes were redeemed.
 */
export function RedemptionView({ token }: { token: string }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const batches = useApi(() => callApi<{ data: RedemptionBatch[]; next_cursor: string | null }>(token, 'GET', `/admin/redemption-codes${query({ cursor, limit: 25 })}`), [token, cursor]);
  return (
    <section aria-labelledby="redemption-title">
      <h2 id="redemption-title">Redemption codes</h2>
      <CreateBatchForm
        token={token}
        onCreated={() => {
          setCursors([]);
          batches.reload();
        }}
      />
      {batches.loading && !batches.data && <Loading what="batches" />}
      {batches.error !== undefined && <ErrorMessage error={batches.error} onRetry={batches.reload} />}
      {batches.data && batches.data.data.length === 0 && <Empty>No batch yet.</Empty>}
      {batches.data && batches.data.data.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Redemption batches">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Amount</th>
                <th scope="col">Redeemed</th>
                <th scope="col">Expires</th>
                <th scope="col">Note</th>
                <th scope="col">Id</th>
              </tr>
            </thead>
            <tbody>
              {batches.data.data.map((batch) => (
                <tr key={batch.id} data-batch-id={batch.id}>
                  <th scope="row">{formatTime(batch.created_at)}</th>
                  <td>{formatUsd(batch.amount)}</td>
                  <td data-testid="redeemed">
                    {formatInteger(batch.redeemed)} of {formatInteger(batch.count)}
                  </td>
                  <td>{batch.expires_at ? formatTime(batch.expires_at) : 'never'}</td>
                  <td>{batch.note ?? ''}</td>
                  <td>
                    <code>{batch.id}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager cursors={cursors} nextCursor={batches.data?.next_cursor} onChange={setCursors} />
    </section>
  );
}

function CreateBatchForm({ token, onCreated }: { token: string; onCreated: () => void }) {
  const [amount, setAmount] = useState('');
  const [count, setCount] = useState('10');
  const [expires, setExpires] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<(RedemptionBatch & { codes: string[] }) | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const answer = await callApi<{ data: RedemptionBatch & { codes: string[] } }>(token, 'POST', '/admin/redemption-codes', {
        amount: Number(amount),
        count: Number(count),
        // A datetime-local field is the browser's local time: sent as the instant it names.
        expires_at: expires === '' ? undefined : new Date(expires).toISOString(),
        note: note.trim() || undefined,
      });
      setCreated(answer.data);
      setAmount('');
      setNote('');
      setExpires('');
      onCreated();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details class="card" open={created !== null || undefined}>
      <summary>Create a batch</summary>
      <form class="filters" aria-label="Create a batch of codes" onSubmit={submit}>
        <label>
          Amount per code (USD)
          <input type="number" required min="0.000000001" step="any" inputMode="decimal" value={amount} onInput={(event) => setAmount((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Number of codes
          <input type="number" required min="1" max="10000" step="1" inputMode="numeric" value={count} onInput={(event) => setCount((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Expires (optional)
          <input type="datetime-local" value={expires} onInput={(event) => setExpires((event.target as HTMLInputElement).value)} />
        </label>
        <label>
          Note (optional)
          <input value={note} maxLength={500} onInput={(event) => setNote((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create codes'}
        </button>
      </form>
      {error !== null && <ErrorMessage error={error} />}
      {created && <NewCodes batch={created} onDismiss={() => setCreated(null)} />}
    </details>
  );
}

/** One line per code: `code,amount_usd,batch_id,expires_at`, for a spreadsheet or a mail merge. */
function toCsv(batch: RedemptionBatch & { codes: string[] }): string {
  const escape = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  const lines = batch.codes.map((code) => [code, String(batch.amount), batch.id, batch.expires_at ?? ''].map(escape).join(','));
  return `code,amount_usd,batch_id,expires_at\n${lines.join('\n')}\n`;
}

/** The codes exist only in this answer: shown once, to copy or download, then gone. */
function NewCodes({ batch, onDismiss }: { batch: RedemptionBatch & { codes: string[] }; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => region.current?.focus(), [batch.id]);
  const [href, setHref] = useState('');
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([toCsv(batch)], { type: 'text/csv' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [batch]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(batch.codes.join('\n'));
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="card notice" role="region" aria-label="New redemption codes" ref={region} tabIndex={-1}>
      <p>
        {formatInteger(batch.codes.length)} codes of {formatUsd(batch.amount)} each. Save them now: they are shown only once, and the gateway keeps only their
        hashes.
      </p>
      <pre class="secret codes" data-testid="new-codes">
        {batch.codes.join('\n')}
      </pre>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy codes'}
        </button>
        <a class="button" href={href} download={`redemption-codes-${batch.id}.csv`}>
          Download CSV
        </a>
        <button type="button" class="secondary" onClick={onDismiss}>
          I have saved them
        </button>
      </div>
    </div>
  );
}
