import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import { formatTime } from '../format.js';
import { roleNames, type Role } from '../roles.js';

interface Invite {
  id: string;
  url: string;
  expires_at: string;
}

/**
 * `POST /v1/members/invites`: the link is answered once, so it is shown here with a copy button
 * for the inviter to pass on (the gateway sends no invite mail itself).
 */
export function InviteForm({ token, inviterRole, onInvited }: { token: Credential; inviterRole: Role; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [invite, setInvite] = useState<Invite | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // An admin invites no owner (docs/sign-in.md).
  const choices: Role[] = inviterRole === 'owner' ? ['owner', 'admin', 'member', 'viewer'] : ['admin', 'member', 'viewer'];
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setCopied(false);
    try {
      const answer = await callApi<{ data: Invite }>(token, 'POST', '/v1/members/invites', { email: email.trim() || undefined, role });
      setInvite(answer.data);
      setEmail('');
      onInvited();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const copy = async () => {
    if (!invite) return;
    try {
      await navigator.clipboard.writeText(invite.url);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <form class="card filters" aria-label="Invite someone" onSubmit={submit}>
      <label>
        Email (optional: only this address may accept)
        <input type="email" value={email} maxLength={254} onInput={(event) => setEmail((event.target as HTMLInputElement).value)} />
      </label>
      <label>
        Role
        <select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value as Role)}>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {roleNames[choice]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        Create invite link
      </button>
      {invite && (
        <div class="notice invite-link" role="region" aria-label="Invite link">
          <p>Send this link to the person you invite. It works once, until {formatTime(invite.expires_at)}, and is shown only now.</p>
          <code class="secret" data-testid="invite-url">
            {invite.url}
          </code>
          <button type="button" onClick={() => void copy()}>
            {copied ? 'Copied' : 'Copy link'}
          </button>
        </div>
      )}
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
