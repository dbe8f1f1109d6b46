import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import type { AppContext } from './app-context.js';
import { registerAccountRoutes } from './api/account/routes.js';
import { registerAuthRoutes } from './api/auth/routes.js';
import { registerAdminConsoleRoutes } from './api/admin/console-routes.js';
import { registerAdminRoutes } from './api/admin/routes.js';
import { registerAdminTransactionRoutes } from './api/admin/transaction-routes.js';
import { registerAuditRoutes } from './api/audit/routes.js';
import { registerAlertRoutes } from './api/alerts/routes.js';
import { registerAdminUserRoutes } from './api/admin/user-routes.js';
import { registerCatalogRoutes } from './api/catalog/routes.js';
import { registerChatCompletionsRoutes } from './api/chat-completions/routes.js';
import { registerBatchRoutes } from './api/batches/batch-routes.js';
import { registerFileRoutes } from './api/batches/file-routes.js';
import { registerMessageBatchRoutes } from './api/batches/message-batch-routes.js';
import { registerGeminiRoutes } from './api/gemini/routes.js';
import { registerMessagesRoutes } from './api/messages/routes.js';
import { registerResponsesRoutes } from './api/responses/routes.js';
import { answerSocketError } from './api/responses/socket/answer-socket-error.js';
import { closeSocketsOnClose } from './api/responses/socket/close-sockets-on-close.js';
import { registerHealthRoutes } from './api/health/routes.js';
import { registerKeyRoutes } from './api/keys/routes.js';
import { registerMediaRoutes } from './api/media/routes.js';
import { registerModerationRoutes } from './api/moderations/routes.js';
import { registerEmbeddingRoutes } from './api/embeddings/routes.js';
import { registerMemberRoutes } from './api/members/routes.js';
import { registerMessengerRoutes } from './api/messenger/routes.js';
import { registerProviderRoutes } from './api/providers/routes.js';
import { registerRedemptionRoutes } from './api/redemption/routes.js';
import { registerRequestRoutes } from './api/requests/routes.js';
import { registerRerankRoutes } from './api/rerank/routes.js';
import { registerCohereEmbedRoutes } from './api/cohere/embed-routes.js';
import { registerUsageRoutes } from './api/usage/routes.js';
import { registerVideoRoutes } from './api/videos/routes.js';
import { registerWebRoutes } from './api/web/routes.js';
import { registerTelegramWebhookRoutes } from './api/webhooks/telegram-routes.js';
import { registerPaymentWebhookRoutes } from './api/webhooks/payment-webhook-routes.js';
import { registerPaymentRoutes } from './api/payments/routes.js';
import { registerTransactionRoutes } from './api/account/transactions-routes.js';
import './http/fastify-augment.js';
import { registerAuth } from './http/register-auth.js';
import { registerCors } from './http/register-cors.js';
import { registerOpenApi } from './http/register-openapi.js';
import { registerMetrics } from './metrics/register-metrics.js';
import { readPackageVersion } from './config/read-package-version.js';
import { registerTextCheck } from './http/register-text-check.js';
import { createClientErrorHandler } from './http/answer-client-error.js';
import { createExpectationHandler } from './http/answer-expectation.js';
import { defaultHttpLimits } from './config/http-limits.js';
import { registerConnectionCaps } from './http/register-connection-caps.js';
import { frameworkErrorOf } from './http/framework-error-of.js';
import { GatewayError } from './errors/gateway-error.js';
import { registerErrorHandling, sendError } from './http/register-error-handling.js';
import { registerJsonParser } from './http/register-json-parser.js';
import { registerValidation } from './http/register-validation.js';

/**
 * Builds the HTTP application on a context; does not listen. Tests call `inject` or listen on
 * port 0; `serve` listens on the configured address.
 */
export async function buildApp(context: AppContext): Promise<FastifyInstance> {
  const limits = { ...defaultHttpLimits, ...context.config.server.http };
  const logger = context.logger as FastifyBaseLogger;
  const app: FastifyInstance = Fastify({
    loggerInstance: logger,
    // Our own onResponse hook logs one line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: context.config.server.bodyLimitBytes,
    genReqId: () => context.createId('req'),
    requestIdHeader: false,
    // Requests that still arrive on a kept-alive connection once the listener is closed are
    // served (with `Connection: close`, which Fastify adds), not refused with a bare 503: the
    // store stays open until the last connection has ended (`cli/shut-down-gracefully.ts`).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Slow clients are bounded (docs/operations.md, "Timeouts and bounds"): headers, whole request, idle keep-alive.
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // Node would answer an HTTP/1.1 request without `Host` with a bare 400 of its own; the
    // onRequest hook below refuses it in the envelope instead.
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: limits.timeoutCheckIntervalMs, requireHostHeader: false },
    // Errors found before routing (bad percent-encoding, over-long parameters, unparsable HTTP)
    // are answered in the same envelope as every other error.
    frameworkErrors: (error, request, reply) => {
      request.log.info({ code: error.code }, 'request refused before routing');
      return sendError(request, reply, frameworkErrorOf(error));
    },
    clientErrorHandler: createClientErrorHandler(context.createId, logger),
  });

  app.server.on('checkExpectation', createExpectationHandler(context.createId, logger));

  // First hook of all, so that even a refused request carries its id. The hooks of every request
  // are callback hooks that call `done` at once: an async hook costs a promise and a microtask.
  const { lifecycle } = context;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (lifecycle.draining) reply.header('connection', 'close');
    // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request that lacks Host.
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new GatewayError('invalid_request', 'HTTP/1.1 requests must carry a Host header', { headers: { connection: 'close' } });
    }
    done();
  });
  // Before auth, so that refusals carry CORS headers too and a browser can read them.
  await registerCors(app, context.config.server.corsOrigins ?? []);
  registerValidation(app);
  registerJsonParser(app);
  registerErrorHandling(app);
  registerTextCheck(app);
  registerAuth(app, context);
  registerConnectionCaps(app, context, limits);
  // The Responses API's WebSocket mode; a message may be as large as a request body. Malformed
  // frames are a client's mistake (`answerSocketError`); at close, sockets drain with the
  // lifecycle instead of being closed at once (`closeSocketsOnClose`).
  await app.register(websocket, {
    options: { maxPayload: context.config.server.bodyLimitBytes },
    errorHandler: answerSocketError,
    preClose: closeSocketsOnClose(context.lifecycle),
  });
  // Before any route: the document is generated from the routes as they are declared.
  await registerOpenApi(app, readPackageVersion());

  app.addHook('onResponse', (request, reply, done) => {
    // One line per request; never headers or bodies (keys and prompts stay out of logs), and the
    // route's pattern rather than the raw path, which can carry any string a client sends.
    request.log.info({ method: request.method, route: request.routeOptions.url ?? '(no route)', status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    done();
  });

  registerHealthRoutes(app, context);
  registerMetrics(app, context);
  registerCatalogRoutes(app, context);
  registerProviderRoutes(app, context);
  registerAccountRoutes(app, context);
  registerTransactionRoutes(app, context);
  registerPaymentRoutes(app, context);
  registerKeyRoutes(app, context);
  registerRequestRoutes(app, context);
  registerUsageRoutes(app, context);
  registerAdminRoutes(app, context);
  registerAdminTransactionRoutes(app, context);
  registerAuditRoutes(app, context);
  registerAlertRoutes(app, context);
  registerAdminConsoleRoutes(app, context);
  registerAdminUserRoutes(app, context);
  registerRedemptionRoutes(app, context);
  registerMessengerRoutes(app, context);
  registerMemberRoutes(app, context);
  registerChatCompletionsRoutes(app, context);
  registerResponsesRoutes(app, context);
  registerMessagesRoutes(app, context);
  registerGeminiRoutes(app, context);
  registerVideoRoutes(app, context);
  registerMediaRoutes(app, context);
  registerModerationRoutes(app, context);
  registerEmbeddingRoutes(app, context);
  registerRerankRoutes(app, context);
  registerCohereEmbedRoutes(app, context);
  registerFileRoutes(app, context);
  registerBatchRoutes(app, context);
  registerMessageBatchRoutes(app, context);
  registerTelegramWebhookRoutes(app, context);
  registerPaymentWebhookRoutes(app, context);
  registerAuthRoutes(app, context);
  registerWebRoutes(app, context);

  await app.ready();
  return app;
}
