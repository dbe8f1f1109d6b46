import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { shouldRetry } from '../errors/client-error-type.js';
import { GatewayError } from '../errors/gateway-error.js';
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
  const knownRoutes = FindMyWay();
  const registered: Array<{ method: string; url: string }> = [];
  app.decorate('registeredRoutes', registered);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      registered.push({ method, url: route.url });
      if (methods.includes(method as (typeof methods)[number])) knownRoutes.on(method as (typeof methods)[number], route.url, () => undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const gatewayError = toGatewayError(error);
    logFailure(request.log, error, gatewayError);
    return sendError(request, reply, gatewayError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = methods.filter((method) => knownRoutes.find(method, path) !== null);
    if (allowed.length > 0) {
      return sendError(request, reply, new GatewayError('method_not_allowed', `Method ${request.method} is not allowed on ${path}`, {
        headers: { allow: allowed.join(', ') },
      }));
    }
    return sendError(request, reply, new GatewayError('not_found', `No route for ${request.method} ${path}`));
  });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: GatewayError): FastifyReply {
  const style = request.routeOptions.config?.errorStyle ?? 'openai';
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (!shouldRetry(error.code)) reply.header('x-should-retry', 'false');
  reply.header('x-request-id', request.id);
  // A refusal that closes the connection before the body was read (413 past the limit, too many
  // large uploads) closes it only once the client can have read the answer.
  if (!request.raw.complete && reply.getHeader('connection') === 'close') lingerBeforeClose(request.raw.socket);
  return reply.code(error.status).type('application/json').send(renderError(error, request.id, style));
}
