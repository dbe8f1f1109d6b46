import { useEffect, useState } from 'preact/hooks';
import { sessionEndedEvent } from './api.js';
import { readLanding } from './landing.js';
import { forgetAccount, loadPersonSession, type PersonSession } from './person-session.js';
import { clearSession, loadSession, saveSession, type Session } from './session.js';
import { SignIn } from './views/sign-in.js';
import { AccountShell } from './views/account-shell.js';
import { OperatorShell } from './views/operator-shell.js';
import { PersonShell } from './views/person-shell.js';
import { Loading } from './components/status.js';

type State =
  | { kind: 'checking' }
  | { kind: 'signed-out' }
  | { kind: 'key'; session: Session }
  | { kind: 'person'; session: PersonSession };

/**
 * Who is at the page: a key pasted in this tab (kept in sessionStorage, as before), else the
 * person's cookie session (`GET /auth/session`), else the sign-in screen.
 */
export function App() {
  const [landing] = useState(readLanding);
  const [state, setState] = useState<State>(() => {
    const stored = loadSession();
    return stored ? { kind: 'key', session: stored } : { kind: 'checking' };
  });

  const checkPerson = async () => {
    try {
      const person = await loadPersonSession();
      setState(person ? { kind: 'person', session: person } : { kind: 'signed-out' });
    } catch {
      // The gateway could not say: the sign-in screen, whose key sign-in still works, shows the rest.
      setState({ kind: 'signed-out' });
    }
  };

  useEffect(() => {
    if (state.kind === 'checking') void checkPerson();
  }, [state.kind]);

  // A session ended elsewhere (another tab signed out, or "sign out everywhere"): back to sign-in.
  useEffect(() => {
    if (state.kind !== 'person') return;
    const ended = () => void checkPerson();
    window.addEventListener(sessionEndedEvent, ended);
    return () => window.removeEventListener(sessionEndedEvent, ended);
  }, [state.kind]);

  const signOutKey = () => {
    clearSession();
    // The next one to sign in starts from the first view, not from this key's last request.
    history.replaceState(null, '', location.pathname);
    setState({ kind: 'checking' });
  };

  if (state.kind === 'checking') return <main class="sign-in"><Loading what="your session" /></main>;
  if (state.kind === 'signed-out') {
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          saveSession(signedIn);
          setState({ kind: 'key', session: signedIn });
        }}
        onSessionStarted={() => setState({ kind: 'checking' })}
      />
    );
  }
  if (state.kind === 'person') {
    return (
      <PersonShell
        session={state.session}
        topUp={landing.topUp}
        onSignedOut={() => {
          forgetAccount();
          history.replaceState(null, '', location.pathname);
          setState({ kind: 'signed-out' });
        }}
      />
    );
  }
  const session = state.session;
  return session.role === 'operator' ? <OperatorShell session={session} onSignOut={signOutKey} /> : <AccountShell session={session} topUp={landing.topUp} onSignOut={signOutKey} />;
}
