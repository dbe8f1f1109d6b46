import { useState } from 'preact/hooks';
import { clearSession, loadSession, saveSession, type Session } from './session.js';
import { SignIn } from './views/sign-in.js';
import { AccountShell } from './views/account-shell.js';
import { OperatorShell } from './views/operator-shell.js';

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const signOut = () => {
    clearSession();
    // The next one to sign in starts from the first view, not from this key's last request.
    history.replaceState(null, '', location.pathname);
    setSession(null);
  };
  if (!session) {
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          saveSession(signedIn);
          setSession(signedIn);
        }}
      />
    );
  }
  return session.role === 'operator' ? <OperatorShell session={session} onSignOut={signOut} /> : <AccountShell session={session} onSignOut={signOut} />;
}
