import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { handleTextRequest } from '../shared/handle-text-request.js';
import { createCompactStyle } from './compact-style.js';
import { createResponsesStyle } from './responses-style.js';
import { registerStoredResponseRoutes } from './stored-response-routes.js';
import { registerResponsesSocket } from './socket/register-responses-socket.js';

/** POST /v1/responses in OpenAI's Responses style for every text model, and its stored responses. */
export function registerResponsesRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/responses', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, (request, reply) =>
    handleTextRequest(context, createResponsesStyle(context, request.principal!), request, reply),
  );
  app.post('/v1/responses/compact', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, (request, reply) =>
    handleTextRequest(context, createCompactStyle(context, request.principal!), request, reply),
  );
  registerStoredResponseRoutes(app, context);
  registerResponsesSocket(app, context);
}
