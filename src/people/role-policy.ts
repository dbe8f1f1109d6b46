import type { MemberRole } from '../auth/principal.js';

const everyone: readonly MemberRole[] = ['owner', 'admin', 'member', 'viewer'];
const managers: readonly MemberRole[] = ['owner', 'admin'];
const keyMakers: readonly MemberRole[] = ['owner', 'admin', 'member'];

/**
 * The routes whose roles differ from the default below (contract §8; docs/sign-in.md "Roles"),
 * by method and declared route pattern:
 *
 * - a `member` creates, lists, changes and revokes keys, and the key routes then narrow it to the
 *   keys it made itself; a `viewer` has no key route (it reads usage and requests only);
 * - auto top-up's settings are the billing an admin may not change: they charge the saved card
 *   off-session, so only an owner sets them (a top-up by Checkout and a code redemption, which
 *   §7 gives to owner and admin sessions, stay with admins);
 * - every role reads the members, and may leave (the route lets a non-manager remove only itself).
 */
const exceptions: Record<string, readonly MemberRole[]> = {
  'GET /v1/keys': keyMakers,
  'POST /v1/keys': keyMakers,
  'PATCH /v1/keys/:key_id/limit': keyMakers,
  'DELETE /v1/keys/:key_id': keyMakers,
  'PUT /v1/credits/auto-top-up': ['owner'],
  'GET /v1/members': everyone,
  'DELETE /v1/members/:user_id': everyone,
};

/**
 * Which roles a signed-in user needs on an account endpoint: the exception above if there is one;
 * else a read is open to every role unless the route needs a management key, and a change needs an
 * owner or admin. A new route is thus closed to members and viewers until it is listed here.
 */
export function rolesAllowed(method: string, routeUrl: string, level: 'key' | 'management'): readonly MemberRole[] {
  const method_ = method === 'HEAD' ? 'GET' : method;
  const exception = exceptions[`${method_} ${routeUrl}`];
  if (exception) return exception;
  if (method_ === 'GET' && level === 'key') return everyone;
  return managers;
}
