/**
 * What the page was brought back with, read once at load and then removed from the address bar
 * (so a reload or a shared URL repeats none of it):
 * - the Telegram Login Widget's redirect (`data-auth-url`): `?id=…&first_name=…&auth_date=…&hash=…`;
 * - a Checkout return: `?topup=success&session_id=cs_…` or `?topup=cancelled`.
 * (A refused OIDC or magic-link sign-in never comes back here: the server answers those with a
 * page of its own that says why.)
 */
export interface Landing {
  telegram?: Record<string, string>;
  topUp?: { outcome: 'success' | 'cancel'; sessionId: string | null };
}

const telegramFields = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash'];

export function readLanding(): Landing {
  const params = new URLSearchParams(location.search);
  const landing: Landing = {};
  if (params.has('hash') && params.has('id') && params.has('auth_date')) {
    landing.telegram = Object.fromEntries(telegramFields.filter((name) => params.has(name)).map((name) => [name, params.get(name)!]));
  }
  const topUp = params.get('topup');
  if (topUp === 'success' || topUp === 'cancelled') {
    landing.topUp = { outcome: topUp === 'success' ? 'success' : 'cancel', sessionId: params.get('session_id') };
  }
  if (location.search) history.replaceState(history.state, '', `${location.pathname}${landing.topUp ? '#/billing' : location.hash}`);
  return landing;
}
