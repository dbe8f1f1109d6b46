import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { shouldRetry } from '../errors/client-error-type.js';
import { GatewayError } from '../errors/gateway-error.js';
import { errorStyleOf, isGeminiStyleRequest } from '../errors/error-style-of.js';
import { renderError } from '../errors/render-error.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { lingerBeforeClose } from './linger-before-close.js';
import { logFailure } from './log-failure.js';

const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * One error handler renders every failure in the spec's envelope (plus the style's fields), and
 * the not-found handler tells an unknown path (404) from a known path with the wrong method (405).
 * 5xx are logged with their cause; nothing internal reaches the client.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  // Matched as the app's router matches (trailing slash, parameter length), so that a path the
  // app routes for another method is named in a 405.
  const { ignoreTrailingSlash, maxParamLength } = (app.initialConfig as { routerOptions?: FindMyWay.Config<FindMyWay.HTTPVersion.V1> }).routerOptions ?? {};
  const knownRoutes = FindMyWay({ ignoreTrailingSlash, maxParamLength });
  const registered: Array<{ method: string; url: string }> = [];
  app.decorate('registeredRoutes', registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      registered.push({ method, url: route.url });
      // A Gemini route's pattern also matches paths that are not Gemini calls (`/v1/models/*`):
      // marked, so that it counts for such a path only when the path is one.
      const store = { gemini: route.config?.errorStyle === 'gemini' };
      if (methods.includes(method as (typeof methods)[number])) knownRoutes.on(method as (typeof methods)[number], route.url, () => undefined, store);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error);
    logFailure(request.log, error, gatewayError);
    return sendError(request, reply, gatewayError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = methods.filter((method) => {
      const found = knownRoutes.find(method, path);
      return found !== null && (!(found.store as { gemini: boolean }).gemini || isGeminiStyleRequest(method, path));
    });
    if (allowed.length > 0) {
      return sendError(request, reply, new GatewayError('method_not_allowed', `Method ${request.method} is not allowed on ${path}`, {
        headers: { allow: allowed.join(', ') },
      }));
    }
    return sendError(request, reply, new GatewayError('not_found', `No route for ${request.method} ${path}`));
  });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: GatewayError): FastifyReply {
  const style = errorStyleOf(request.method, request.url, request.routeOptions.config?.errorStyle);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (!shouldRetry(error.code)) reply.header('x-should-retry', 'false');
  reply.header('x-request-id', request.id);
  // A refusal that closes the connection before the body was read (413 past the limit, too many
  // large uploads) closes it only once the client can have read the answer.
  if (!request.raw.complete && reply.getHeader('connection') === 'close') lingerBeforeClose(request.raw.socket);
  return reply.code(error.status).type('application/json').send(renderError(error, request.id, style));
}
