import cookie from '@fastify/cookie';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError, notFound } from '../../errors/gateway-error.js';
import { describeSession } from '../../people/describe-session.js';
import { csrfTokenOf } from '../../people/session-secrets.js';
import { endSession, endUserSession, sessionIdleMs } from '../../people/sessions.js';
import { listUserSessions } from '../../store/repositories/sessions.js';
import { registerEmailSignInRoutes } from './email-routes.js';
import { registerOidcSignInRoutes } from './oidc-routes.js';
import { clearSessionCookie, requireSession } from './session-cookie.js';
import { registerTelegramSignInRoutes } from './telegram-routes.js';

const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * The page's sign-in (contract §7): what is on, the session, sign-out, the user's sessions, and
 * each method's routes. The cookie plugin lives in this scope only, so that requests elsewhere
 * (every API call) pay nothing for cookies.
 */
export function registerAuthRoutes(app: FastifyInstance, context: AppContext): void {
  app.register(async (scope) => {
    // Parsing on (the default onRequest hook): in @fastify/cookie 11.1.0, the release pinned for
    // Node 20, the hook that writes Set-Cookie is added only with it. The session itself is read
    // from the header by `readSessionCookie`, so the parse costs these routes a few microseconds.
    await scope.register(cookie);
    const config = { auth: 'none' as const };
    const { db } = context.store;

    scope.get('/auth/providers', { config }, async () => {
      const auth = context.config.auth;
      const signup = context.config.signup;
      const bot = context.config.server.telegram;
      return {
        data: {
          oidc: (auth?.oidc ?? []).map((provider) => ({ id: provider.id, name: provider.name, start_url: `/auth/oidc/${provider.id}/start` })),
          // The bot's numeric id (the public part of its token, before the colon) is what the page's
          // Telegram.Login.auth call names; the secret part never leaves the server.
          telegram: auth?.telegram.login && bot ? { bot_username: bot.botUsername, bot_id: Number(bot.botToken.split(':')[0]) } : null,
          email: auth?.email != null,
          signup: { mode: signup?.mode ?? 'closed', allowed_email_domains: signup?.allowedEmailDomains ?? [] },
        },
      };
    });

    scope.get('/auth/session', { config }, async (request, reply) => {
      const { session, token } = await requireSession(context, request);
      const view = await describeSession(context, session.userId);
      if (!view) throw new GatewayError('invalid_api_key', 'Not signed in');
      reply.header('cache-control', 'no-store');
      return { data: view, csrf_token: csrfTokenOf(token) };
    });

    scope.post('/auth/sign-out', { config }, async (request, reply) => {
      const { session } = await requireSession(context, request);
      await endSession(context, session, request.ip);
      clearSessionCookie(reply, context);
      return reply.status(204).send();
    });

    scope.get('/auth/sessions', { config }, async (request) => {
      const { session: current } = await requireSession(context, request);
      const since = new Date(context.clock.now().getTime() - sessionIdleMs).toISOString();
      const sessions = await listUserSessions(db, current.userId, since);
      return {
        data: sessions.map((session) => ({
          id: session.id,
          created_at: session.createdAt,
          last_used_at: session.lastUsedAt,
          user_agent: session.userAgent,
          ip: session.ip,
          current: session.id === current.id,
        })),
      };
    });

    scope.delete<{ Params: { id: string } }>('/auth/sessions/:id', { schema: { params: SessionParams }, config }, async (request, reply) => {
      const { session: current } = await requireSession(context, request);
      // Another user's session id is as unknown as one that never was.
      if (!(await endUserSession(context, current.userId, request.params.id, request.ip))) throw notFound(`Session '${request.params.id}'`);
      if (request.params.id === current.id) clearSessionCookie(reply, context);
      return reply.status(204).send();
    });

    registerEmailSignInRoutes(scope, context);
    registerTelegramSignInRoutes(scope, context);
    registerOidcSignInRoutes(scope, context);
  });
}
