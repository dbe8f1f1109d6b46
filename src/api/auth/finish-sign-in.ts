import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { UserRecord } from '../../store/repositories/users.js';
import { readSessionCookie } from '../../people/session-secrets.js';
import { startSession, type SignInMethod } from '../../people/sessions.js';
import { setSessionCookie } from './session-cookie.js';

/**
 * Starts the session of a user a sign-in method has just vouched for and sets its cookie; the
 * cookie the browser brought (if any) is ended, not reused (no session fixation). Answers the new
 * token, from which the CSRF token is derived.
 */
export async function finishSignIn(context: AppContext, request: FastifyRequest, reply: FastifyReply, user: UserRecord, method: SignInMethod): Promise<string> {
  const token = await startSession(context, user.id, {
    method,
    userAgent: request.headers['user-agent'],
    ip: request.ip,
    previousToken: readSessionCookie(request.headers.cookie),
  });
  setSessionCookie(reply, context, token);
  reply.header('cache-control', 'no-store');
  request.log.info({ userId: user.id }, 'signed in');
  return token;
}
