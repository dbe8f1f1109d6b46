import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { GatewayError, notFound } from '../errors/gateway-error.js';
import { findMembershipRole } from '../store/repositories/memberships.js';
import { rolesAllowed } from './role-policy.js';
import { isMemberRole, roleManages } from './roles.js';
import { csrfTokenMatches } from './session-secrets.js';
import { findLiveSession } from './sessions.js';

/**
 * The public account endpoints a session may act on (contract §7, and §8's members, alerts and
 * audit). Paid endpoints are not among them: they take keys only, so a page session cannot spend.
 */
const sessionRoutePrefixes = ['/v1/keys', '/v1/credits', '/v1/usage', '/v1/requests', '/v1/providers', '/v1/messenger', '/v1/members', '/v1/alerts', '/v1/audit'];

/** Whether a route (its declared pattern, not the raw path) takes a session in place of a key. */
export function acceptsSession(routeUrl: string | undefined): boolean {
  if (routeUrl === undefined) return false;
  return sessionRoutePrefixes.some((prefix) => routeUrl === prefix || routeUrl.startsWith(`${prefix}/`));
}

/** Methods that change nothing, and so need no CSRF token. */
export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * The principal of a signed-in user on an account endpoint: the session must be live, a change
 * must carry the session's CSRF token, `x-switchyard-account` must name an account the user is a
 * member of (an unknown account and one the user is no member of get the same 404, so nothing is
 * learnt of other accounts), and the role must allow the route (`role-policy.ts`). The role is
 * read on every request, so a changed or removed membership acts at once on every instance.
 */
export async function authenticateSession(
  context: Pick<AppContext, 'store' | 'clock'>,
  request: { method: string; headers: Record<string, string | string[] | undefined>; routeOptions: { url?: string } },
  level: 'key' | 'management',
  token: string,
): Promise<Principal> {
  const session = await findLiveSession(context, token);
  if (!session) throw new GatewayError('invalid_api_key', 'Session ended or unknown: sign in again, or send an API key');
  if (!isSafeMethod(request.method) && !csrfTokenMatches(token, request.headers['x-csrf-token'])) {
    throw new GatewayError('forbidden', 'Missing or wrong x-csrf-token: a change made with a session carries the token from GET /auth/session');
  }
  const accountId = request.headers['x-switchyard-account'];
  if (typeof accountId !== 'string' || accountId === '') {
    throw new GatewayError('forbidden', 'Name the account in the x-switchyard-account header: a session acts for one account at a time');
  }
  const role = await findMembershipRole(context.store.db, session.userId, accountId);
  if (role === undefined || !isMemberRole(role)) throw notFound(`Account '${accountId}'`);
  const management = roleManages(role);
  const allowed = rolesAllowed(request.method, request.routeOptions.url ?? '', level);
  if (!allowed.includes(role)) {
    throw new GatewayError('forbidden', `This needs the ${allowed.join(' or ')} role in this account; yours is ${role}`, { metadata: { role } });
  }
  return {
    keyId: `session:${session.id}`,
    accountId,
    management,
    maxPrice: null,
    modelMaxPrices: {},
    requestsPerMinute: null,
    session: { sessionId: session.id, userId: session.userId, role },
  };
}
