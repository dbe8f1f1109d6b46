import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import { formatUsd } from '../format.js';

/** A redemption code from the operator (`SY-XXXX-…`): `POST /v1/credits/redeem`. */
export function RedeemForm({ token, onRedeemed }: { token: Credential; onRedeemed: () => void }) {
  const [code, setCode] = useState('');
  const [result, setResult] = useState<{ amount: number; balance: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await callApi<{ data: { amount: number; balance: number } }>(token, 'POST', '/v1/credits/redeem', { code: code.trim() });
      setResult(answer.data);
      setCode('');
      onRedeemed();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" aria-label="Redeem a code" onSubmit={submit}>
      <h3>Redeem a code</h3>
      <div class="filters">
        <label>
          Redemption code
          <input type="text" autocomplete="off" spellcheck={false} placeholder="SY-XXXX-XXXX-XXXX-XXXX" value={code} onInput={(event) => setCode((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy || code.trim() === ''}>
          Redeem
        </button>
      </div>
      {result && (
        <p role="status" class="notice">
          Redeemed {formatUsd(result.amount)}. Your balance is {formatUsd(result.balance)}.
        </p>
      )}
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
