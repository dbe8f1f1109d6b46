import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, callApi, request } from '../api.js';
import { loadAuthProviders } from '../auth-providers.js';
import { ErrorMessage } from '../components/status.js';
import type { Session } from '../session.js';
import { describeSignInError, isClosedSignUp } from '../sign-in-error.js';
import { useApi } from '../use-api.js';
import { EmailSignIn } from './email-sign-in.js';
import { TelegramLogin, type TelegramLoginFields } from './telegram-login.js';

/**
 * Finds out what the credential is by asking the API: an account key answers /credits (and a
 * management key also /keys); otherwise the operator's admin token answers /admin/accounts.
 */
async function identify(token: string): Promise<Session> {
  try {
    await callApi(token, 'GET', '/v1/credits');
    try {
      await callApi(token, 'GET', '/v1/keys?limit=1');
      return { token, role: 'account', management: true };
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return { token, role: 'account', management: false };
      throw error;
    }
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  try {
    await callApi(token, 'GET', '/admin/accounts?limit=1');
    return { token, role: 'operator', management: false };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
      throw new ApiError(401, 'invalid_api_key', 'This key was not accepted. Check that you pasted the whole key (account keys start with sy_) and that it has not been revoked.');
    }
    throw error;
  }
}

/**
 * The sign-in screen: the choices `GET /auth/providers` lists (OIDC providers, Telegram, a magic
 * link by email), and, as before, a pasted API key or the operator's admin token. `returnTo` is
 * where each person method comes back to (the invite page passes its own path: in `invite` mode
 * the server admits a new person only on the way to an invite); without `onSignedIn` there is no
 * key sign-in (a key joins no account).
 */
export function SignIn({
  onSignedIn,
  onSessionStarted,
  returnTo = '/',
  children,
}: {
  onSignedIn?: (session: Session) => void;
  onSessionStarted: () => void;
  returnTo?: string;
  /** What the screen opens with instead of the gateway's name (the invite page's invite). */
  children?: ComponentChildren;
}) {
  const providers = useApi(loadAuthProviders, []);
  const on = providers.data;
  const [refused, setRefused] = useState<unknown>(null);
  const refusal = describeSignInError(refused);
  // The fields as Telegram signed them, posted as JSON (contract §7); the server sets the session cookie.
  const signInWithTelegram = async (fields: TelegramLoginFields) => {
    setRefused(null);
    try {
      await request(null, 'POST', '/auth/telegram', { ...fields, return_to: returnTo });
      onSessionStarted();
    } catch (error) {
      setRefused(error);
    }
  };
  const anyPersonMethod = on && (on.oidc.length > 0 || on.telegram !== null || on.email);
  return (
    <main class="sign-in">
      {children ?? <h1>Switchyard</h1>}
      {refusal && (
        <div class="error" role="alert" data-testid="sign-in-refused">
          {isClosedSignUp(refused) && <h2>Sign-up is closed</h2>}
          <p>{refusal}</p>
        </div>
      )}
      {anyPersonMethod && (
        <section aria-labelledby="person-sign-in-title" class="sign-in-methods">
          <h2 id="person-sign-in-title">{on.signUpMode === 'open' ? 'Sign in or sign up' : 'Sign in'}</h2>
          {on.signUpMode === 'open' && <p class="muted">New here? The first sign-in creates your account.</p>}
          {on.oidc.length > 0 && (
            <div class="oidc-choices">
              {on.oidc.map((provider) => (
                <a key={provider.id} class="button" href={`/auth/oidc/${encodeURIComponent(provider.id)}/start?return_to=${encodeURIComponent(returnTo)}`}>
                  Continue with {provider.name}
                </a>
              ))}
            </div>
          )}
          {on.telegram && <TelegramLogin botId={on.telegram.botId} onFields={(fields) => void signInWithTelegram(fields)} />}
          {on.email && <EmailSignIn returnTo={returnTo} />}
        </section>
      )}
      {onSignedIn && <KeySignIn onSignedIn={onSignedIn} />}
    </main>
  );
}

function KeySignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await identify(token.trim()));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="key-sign-in-title">
      <h2 id="key-sign-in-title">With an API key</h2>
      <p>Sign in with an API key to see your balance, usage, requests and keys; operators sign in with the admin token.</p>
      <form onSubmit={submit}>
        <label for="credential">API key or admin token</label>
        <input
          id="credential"
          name="credential"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error !== null && <ErrorMessage error={error} />}
      <p class="muted">The key stays in this tab's session storage and is sent only in the Authorization header.</p>
    </section>
  );
}
