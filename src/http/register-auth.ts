import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { secretsEqual } from '../auth/api-key-format.js';
import { authenticateKey, invalidApiKey, readPresentedKey } from '../auth/authenticate.js';
import { GatewayError } from '../errors/gateway-error.js';

/** Enforces each route's `config.auth` level as the request arrives, before its body is read or validated. */
export function registerAuth(app: FastifyInstance, context: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const level = request.routeOptions.config?.auth ?? 'none';
    if (level === 'none') return;
    const presented = readPresentedKey(request.headers) ?? (request.routeOptions.config?.keyInQuery ? readQueryKey(request.query) : undefined);
    if (level === 'admin') {
      // Without SWITCHYARD_ADMIN_TOKEN the admin API does not exist (docs/api-decisions.md §1).
      const token = context.config.server.adminToken;
      if (!token) throw new GatewayError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
      if (presented === undefined || !secretsEqual(presented, token)) throw invalidApiKey('Invalid or missing admin token');
      return;
    }
    if (level === 'optional' && presented === undefined) return;
    request.principal = await authenticateKey(context.store.db, context.keyCache, presented);
    if (level === 'management' && !request.principal.management) {
      throw new GatewayError('forbidden', 'This endpoint needs a management key');
    }
  });
}

/** `?key=…`, as Google's APIs take an API key. */
function readQueryKey(query: unknown): string | undefined {
  const key = typeof query === 'object' && query !== null ? (query as Record<string, unknown>).key : undefined;
  return typeof key === 'string' && key !== '' ? key : undefined;
}
