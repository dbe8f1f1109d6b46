/**
 * What the page was brought back with, read once at load and then removed from the address bar
 * (so a reload or a shared URL repeats none of it):
 * - the Telegram Login Widget's redirect (`data-auth-url`): `?id=…&first_name=…&auth_date=…&hash=…`;
 * - a Checkout return: `?topup=success&session_id=cs_…` or `?topup=cancel`;
 * - a sign-in refused at the server's callback (OIDC, magic link): `?error=<code>`.
 */
export interface Landing {
  telegram?: Record<string, string>;
  topUp?: { outcome: 'success' | 'cancel'; sessionId: string | null };
  signInError?: string;
}

const telegramFields = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash'];

export function readLanding(): Landing {
  const params = new URLSearchParams(location.search);
  const landing: Landing = {};
  if (params.has('hash') && params.has('id') && params.has('auth_date')) {
    landing.telegram = Object.fromEntries(telegramFields.filter((name) => params.has(name)).map((name) => [name, params.get(name)!]));
  }
  const topUp = params.get('topup') ?? params.get('checkout');
  if (topUp === 'success' || topUp === 'cancel' || topUp === 'canceled' || topUp === 'cancelled') {
    landing.topUp = { outcome: topUp === 'success' ? 'success' : 'cancel', sessionId: params.get('session_id') };
  }
  const error = params.get('error') ?? params.get('sign_in_error');
  if (error) landing.signInError = error;
  if (location.search) history.replaceState(history.state, '', `${location.pathname}${landing.topUp ? '#/billing' : location.hash}`);
  return landing;
}
