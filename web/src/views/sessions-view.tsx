import { useState } from 'preact/hooks';
import { callApi, type AccountSession } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime } from '../format.js';
import { useApi } from '../use-api.js';

interface SignedInSession {
  id: string;
  created_at: string;
  last_used_at: string | null;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

/**
 * Where the person is signed in (`GET /auth/sessions`): end any other one, or all of them. "Sign
 * out everywhere" ends every other session first and this one last, so a failure half-way leaves
 * this tab able to try again.
 */
export function SessionsView({ token, onSignedOut }: { token: AccountSession; onSignedOut: () => void }) {
  const sessions = useApi(() => callApi<{ data: SignedInSession[] }>(token, 'GET', '/auth/sessions'), [token]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const end = (id: string) => act(async () => {
    await callApi(token, 'DELETE', `/auth/sessions/${encodeURIComponent(id)}`);
    sessions.reload();
  });
  const everywhere = () =>
    act(async () => {
      const others = (sessions.data?.data ?? []).filter((session) => !session.current);
      for (const other of others) await callApi(token, 'DELETE', `/auth/sessions/${encodeURIComponent(other.id)}`);
      await callApi(token, 'POST', '/auth/sign-out');
      onSignedOut();
    });
  // This browser first, then the others as the server lists them.
  const rows = [...(sessions.data?.data ?? [])].sort((a, b) => Number(b.current) - Number(a.current));
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      {sessions.loading && !sessions.data && <Loading what="sessions" />}
      {sessions.error !== undefined && <ErrorMessage error={sessions.error} onRetry={sessions.reload} />}
      {sessions.data && rows.length === 0 && <Empty>No sessions.</Empty>}
      {rows.length > 0 && (
        <ul class="key-list" aria-label="Sessions">
          {rows.map((session) => (
            <li key={session.id} class="card" aria-label={session.current ? 'This session' : `Session ${session.id}`} data-session-id={session.id}>
              <p>
                <strong>{session.current ? 'This browser' : 'Another browser'}</strong>
              </p>
              {session.user_agent && <p class="muted user-agent">{session.user_agent}</p>}
              <p class="muted">
                Signed in {formatTime(session.created_at)} · last used {formatTime(session.last_used_at)}
                {session.ip ? ` · ${session.ip}` : ''}
              </p>
              {!session.current && (
                <button type="button" class="danger" disabled={busy} onClick={() => void end(session.id)}>
                  End this session
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void everywhere()}>
          Sign out everywhere
        </button>
      </div>
      {error !== null && <ErrorMessage error={error} />}
    </section>
  );
}
