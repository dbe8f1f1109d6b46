/**
 * What the page was brought back with, read once at load and then removed from the address bar
 * (so a reload or a shared URL repeats none of it):
 * a Checkout return, `?topup=success&session_id=cs_…` or `?topup=cancelled`. (No sign-in ever
 * comes back here in the query: OIDC and magic links end at the server, which sets the cookie or
 * answers a page of its own saying why not, and Telegram's fields come back as a script value.)
 */
export interface Landing {
  topUp?: { outcome: 'success' | 'cancel'; sessionId: string | null };
}

export function readLanding(): Landing {
  const params = new URLSearchParams(location.search);
  const landing: Landing = {};
  const topUp = params.get('topup');
  if (topUp === 'success' || topUp === 'cancelled') {
    landing.topUp = { outcome: topUp === 'success' ? 'success' : 'cancel', sessionId: params.get('session_id') };
  }
  if (location.search) history.replaceState(history.state, '', `${location.pathname}${landing.topUp ? '#/billing' : location.hash}`);
  return landing;
}
