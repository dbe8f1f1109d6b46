import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { csrfTokenMatches, readSessionCookie, sessionCookieName } from '../../people/session-secrets.js';
import { findLiveSession, sessionIdleMs } from '../../people/sessions.js';
import type { SessionRecord } from '../../store/repositories/sessions.js';

/**
 * `Secure` unless the page is served over plain http to loopback (a developer's machine), where
 * a browser would drop a Secure cookie sent over http; every other origin gets it.
 */
export function cookieIsSecure(publicUrl: string | null | undefined): boolean {
  if (!publicUrl) return true;
  const url = new URL(publicUrl);
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return !(url.protocol === 'http:' && loopback);
}

export function setSessionCookie(reply: FastifyReply, context: Pick<AppContext, 'config'>, token: string): void {
  reply.setCookie(sessionCookieName, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: cookieIsSecure(context.config.server.publicUrl),
    // The browser may keep it as long as the server does; each use extends the server's side.
    maxAge: sessionIdleMs / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply, context: Pick<AppContext, 'config'>): void {
  reply.clearCookie(sessionCookieName, { httpOnly: true, sameSite: 'lax', path: '/', secure: cookieIsSecure(context.config.server.publicUrl) });
}

/**
 * The request's live session and its token, or 401; a request that changes something must also
 * carry the session's CSRF token (403 `forbidden` without it).
 */
export async function requireSession(context: Pick<AppContext, 'store' | 'clock'>, request: FastifyRequest): Promise<{ session: SessionRecord; token: string }> {
  const token = readSessionCookie(request.headers.cookie);
  const session = token === undefined ? undefined : await findLiveSession(context, token);
  if (token === undefined || !session) throw new GatewayError('invalid_api_key', 'Not signed in');
  if (request.method !== 'GET' && request.method !== 'HEAD' && !csrfTokenMatches(token, request.headers['x-csrf-token'])) {
    throw new GatewayError('forbidden', 'Missing or wrong x-csrf-token: a change made with a session carries the token from GET /auth/session');
  }
  return { session, token };
}
