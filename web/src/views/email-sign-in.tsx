import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { ErrorMessage } from '../components/status.js';

/**
 * The magic link: the server always answers 202, known address or not (§7), so the page says the
 * same to everyone — check your mail — and never hints whether an account exists.
 */
export function EmailSignIn({ returnTo = '/' }: { returnTo?: string }) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request(null, 'POST', '/auth/email/start', { email: email.trim(), return_to: returnTo });
      setSentTo(email.trim());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  if (sentTo) {
    return (
      <div class="card" role="status" aria-label="Check your mail">
        <h3>Check your mail</h3>
        <p>
          If <strong>{sentTo}</strong> can sign in here, a sign-in link is on its way. It works once, for 15 minutes.
        </p>
        <button type="button" class="secondary" onClick={() => setSentTo(null)}>
          Use another address
        </button>
      </div>
    );
  }
  return (
    <form onSubmit={submit} aria-label="Sign in by email">
      <label for="sign-in-email">Email address</label>
      <input id="sign-in-email" name="email" type="email" autocomplete="email" required value={email} onInput={(event) => setEmail((event.target as HTMLInputElement).value)} />
      <button type="submit" disabled={busy || email.trim() === ''}>
        {busy ? 'Sending…' : 'Email me a sign-in link'}
      </button>
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
