import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import { formatTime } from '../format.js';
import { roleNames, type Role } from '../roles.js';
import { useApi } from '../use-api.js';

interface PendingInvite {
  id: string;
  email: string | null;
  role: Role;
  created_at: string;
  expires_at: string;
}

/** `GET /v1/members/invites` (the pending ones) with a revoke each; `version` counts new invites. */
export function PendingInvites({ token, version }: { token: Credential; version: number }) {
  const invites = useApi(() => callApi<{ data: PendingInvite[] }>(token, 'GET', '/v1/members/invites?limit=500'), [token, version]);
  const [error, setError] = useState<unknown>(null);
  const revoke = async (id: string) => {
    setError(null);
    try {
      await callApi(token, 'DELETE', `/v1/members/invites/${encodeURIComponent(id)}`);
      invites.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const rows = invites.data?.data ?? [];
  return (
    <section aria-labelledby="invites-title">
      <h3 id="invites-title">Pending invites</h3>
      {invites.error !== undefined && <ErrorMessage error={invites.error} onRetry={invites.reload} />}
      {error !== null && <ErrorMessage error={error} />}
      {invites.data && rows.length === 0 && <p class="status empty">No pending invites.</p>}
      {rows.length > 0 && (
        <ul class="key-list" aria-label="Pending invites">
          {rows.map((invite) => (
            <li key={invite.id} class="card" aria-label={`Invite ${invite.email ?? invite.id}`}>
              <div class="key-head">
                <strong>{invite.email ?? 'anyone with the link'}</strong>
                <span class="badge">{roleNames[invite.role]}</span>
              </div>
              <p class="muted">
                Made {formatTime(invite.created_at)}, works until {formatTime(invite.expires_at)}.
              </p>
              <button type="button" class="danger" aria-label={`Revoke the invite for ${invite.email ?? invite.id}`} onClick={() => void revoke(invite.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
