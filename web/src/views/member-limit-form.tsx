import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ResetSelect } from '../components/reset-select.js';
import { ErrorMessage } from '../components/status.js';
import type { LimitReset } from '../limit-period.js';
import type { MemberRow } from './members-view.js';

/**
 * `PATCH /v1/members/{user_id} {limit, limit_reset}` (contract §8): what the member's keys may
 * spend together, as a lifetime total or per day, week or month; empty clears it. The server
 * answers with its refusal as it is (an admin sets no owner's limit).
 */
export function MemberLimitForm({ token, member, label, onSaved }: { token: Credential; member: MemberRow; label: string; onSaved: () => void }) {
  const [limit, setLimit] = useState(member.limit === null ? '' : String(member.limit));
  const [reset, setReset] = useState<LimitReset>(member.limit_reset);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await callApi(token, 'PATCH', `/v1/members/${encodeURIComponent(member.user_id)}`, { limit: limit.trim() === '' ? null : Number(limit), limit_reset: reset });
      onSaved();
    } catch (caught) {
      setError(caught);
    }
  };
  const unchanged = limit === (member.limit === null ? '' : String(member.limit)) && reset === member.limit_reset;
  return (
    <form class="filters" aria-label={`Limit of ${label}`} onSubmit={submit}>
      <label>
        Member limit (USD, empty: none)
        <input type="number" min="0" step="any" value={limit} onInput={(event) => setLimit((event.target as HTMLInputElement).value)} />
      </label>
      <ResetSelect value={reset} onChange={setReset} />
      <button type="submit" disabled={unchanged}>
        Save limit
      </button>
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
