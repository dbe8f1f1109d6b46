import type { FastifyInstance, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppContext } from '../app-context.js';
import { secretsEqual } from '../auth/api-key-format.js';
import { authenticateKey, cachedPrincipal, invalidApiKey, readPresentedKey } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import { GatewayError } from '../errors/gateway-error.js';
import { acceptsSession, authenticateSession } from '../people/authenticate-session.js';
import { readSessionCookie } from '../people/session-secrets.js';

/**
 * Enforces each route's `config.auth` level as the request arrives, before its body is read or
 * validated. A callback hook, not an async one: a key in the cache (every request but a key's
 * first in `ttl`) goes on to the next step at once, without a promise and a microtask.
 */
export function registerAuth(app: FastifyInstance, context: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const level = request.routeOptions.config?.auth ?? 'none';
    if (level === 'none') return done();
    const presented = readPresentedKey(request.headers) ?? (request.routeOptions.config?.keyInQuery ? readQueryKey(request.query) : undefined);
    if (level === 'admin') {
      // Without SWITCHYARD_ADMIN_TOKEN the admin API does not exist (docs/api-decisions.md §1).
      const token = context.config.server.adminToken;
      if (!token) throw new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
      if (presented === undefined || !secretsEqual(presented, token)) throw invalidApiKey('Invalid or missing admin token');
      return done();
    }
    if (level === 'optional' && presented === undefined) return done();
    // A signed-in page on the account endpoints (people/authenticate-session.ts): only when no key
    // is presented, so a request with a key goes on below exactly as before, its cookie ignored.
    if (presented === undefined && acceptsSession(request.routeOptions.url)) {
      const token = readSessionCookie(request.headers.cookie);
      if (token !== undefined) {
        authenticateSession(context, request, level === 'management' ? 'management' : 'key', token).then((principal) => {
          request.principal = principal;
          done();
        }, done);
        return;
      }
    }
    const cached = cachedPrincipal(context.keyCache, presented);
    if (cached) return admit(request, level, cached, done);
    authenticateKey(context.store.db, context.keyCache, presented).then((principal) => admit(request, level, principal, done), done);
  });
}

function admit(request: FastifyRequest, level: string, principal: Principal, done: HookHandlerDoneFunction): void {
  request.principal = principal;
  if (level === 'management' && !principal.management) return done(new GatewayError('forbidden', 'This endpoint needs a management key'));
  done();
}

/** `?key=…`, as Google's APIs take an API key. */
function readQueryKey(query: unknown): string | undefined {
  const key = typeof query === 'object' && query !== null ? (query as Record<string, unknown>).key : undefined;
  return typeof key === 'string' && key !== '' ? key : undefined;
}
