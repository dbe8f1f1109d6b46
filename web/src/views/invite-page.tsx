import { useState } from 'preact/hooks';
import { callApi, request } from '../api.js';
import { ErrorMessage, Loading } from '../components/status.js';
import { formatTime } from '../format.js';
import { loadPersonSession, rememberAccount } from '../person-session.js';
import { roleNames, type Role } from '../roles.js';
import { useApi } from '../use-api.js';
import { SignIn } from './sign-in.js';

interface InviteInfo {
  account: { name: string };
  role: Role;
  email: string | null;
  status: 'pending' | 'used' | 'revoked' | 'expired';
  expires_at: string;
}

const notPending: Record<Exclude<InviteInfo['status'], 'pending'>, string> = {
  used: 'This invite has been used already. Ask for a new one.',
  revoked: 'This invite was revoked. Ask for a new one.',
  expired: 'This invite has expired. Ask for a new one.',
};

/**
 * An invite link, `/invites/{token}` (contract §8): what it invites to (`GET /auth/invites/{token}`);
 * signed in, a button that accepts it (`POST /invites/{token}/accept` with the session's CSRF
 * token); signed out, the sign-in choices, each coming back here — the only way a new person is
 * admitted when sign-up is by invite.
 */
export function InvitePage({ token }: { token: string }) {
  const path = `/invites/${token}`;
  const invite = useApi(async () => (await request(null, 'GET', `/auth/invites/${encodeURIComponent(token)}`)).json.data as InviteInfo, [token]);
  const session = useApi(loadPersonSession, []);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const info = invite.data;
  const accept = async () => {
    if (!session.data) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await callApi<{ data: { account_id: string } }>({ kind: 'session', accountId: '', csrfToken: session.data.csrfToken }, 'POST', `${path}/accept`);
      // The page at `/` opens on the account just joined.
      rememberAccount(answer.data.account_id);
      location.assign('/');
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  const summary = (
    <div class="invite-summary">
      <h1>Invite</h1>
      {invite.loading && !info && <Loading what="the invite" />}
      {invite.error !== undefined && <ErrorMessage error={invite.error} />}
      {info && (
        <>
          <p data-testid="invite-summary">
            You are invited to <strong>{info.account.name}</strong> as <strong>{roleNames[info.role]}</strong>.
          </p>
          {info.email && <p class="muted">For {info.email} only: sign in with that address.</p>}
          {info.status === 'pending' ? <p class="muted">The link works once, until {formatTime(info.expires_at)}.</p> : <p class="error" role="alert">{notPending[info.status]}</p>}
        </>
      )}
    </div>
  );
  if (session.loading && session.data === undefined) return <main class="sign-in">{summary}</main>;
  if (!session.data) {
    if (info?.status !== 'pending') return <main class="sign-in">{summary}</main>;
    return (
      <SignIn returnTo={path} onSessionStarted={session.reload}>
        {summary}
        <p>Sign in to accept it.</p>
      </SignIn>
    );
  }
  const { name, email } = session.data.user;
  return (
    <main class="sign-in">
      {summary}
      <p class="muted">Signed in as {name ?? email}.</p>
      {info?.status === 'pending' && (
        <button type="button" disabled={busy} onClick={() => void accept()}>
          Accept the invite
        </button>
      )}
      {error !== null && <ErrorMessage error={error} />}
      <p>
        <a href="/">Go to your accounts</a>
      </p>
    </main>
  );
}
