import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { AppContext } from '../../../app-context.js';
import { authenticateKey, readPresentedKey } from '../../../auth/authenticate.js';
import type { Principal } from '../../../auth/principal.js';
import { GatewayError, invalidRequest } from '../../../errors/gateway-error.js';
import { renderError } from '../../../errors/render-error.js';
import { toGatewayError } from '../../../errors/to-gateway-error.js';
import { defaultHttpLimits } from '../../../config/http-limits.js';
import { logFailure } from '../../../http/log-failure.js';
import { countRateLimitRefusal } from '../../../metrics/count-rate-limit-refusal.js';
import { findPriorTurn } from '../stored-response-routes.js';
import { ConnectionTurns } from './connection-turns.js';
import { runSocketResponse } from './run-socket-response.js';

/**
 * RFC 6455 close codes: a policy refusal (key, limit), normal closure (idle), the server going
 * away (shutdown).
 */
const closePolicy = 1008;
const closeNormal = 1000;
const closeGoingAway = 1001;
/** After a cut, how long the socket has to send its last events and finish the closing handshake. */
const cutCloseMs = 1_500;
/** `response.create` messages one connection may have waiting or running; more are refused. */
const maxQueuedResponses = 8;
/** Bytes queued on a socket past which sending waits for the client to read. */
const sendHighWaterBytes = 64 * 1024;

const shuttingDown = () => new GatewayError('service_unavailable', 'This server is shutting down: open a new connection to continue (the turns of this one stay stored)');

/**
 * WebSocket mode of the Responses API (`GET /v1/responses` with `Upgrade: websocket`): the client
 * sends `{"type": "response.create", …}` messages with the fields of `POST /v1/responses`, and
 * gets the same events as the SSE stream, one per message. Responses run one after another in
 * the order they were sent. `previous_response_id` continues from the connection's own recent
 * responses (also `store: false` ones), else from stored ones. The key is checked after the
 * upgrade so that a refusal reaches the client in the error envelope (as an `error` message,
 * then a 1008 close) rather than as an unreadable failed handshake; so is the cap on open
 * sockets per key. Every message checks the key again, as every HTTP request does (a cache hit
 * but for the key's first use in the cache's lifetime), so that a revoked key stops at once and a
 * changed limit applies to the next message. A socket with nothing under way for the idle
 * timeout is closed. At shutdown (`ServerLifecycle`), the responses under way finish within the
 * grace period while new messages are refused; whatever the grace period cuts ends with
 * `response.failed`.
 */
export function registerResponsesSocket(app: FastifyInstance, context: AppContext): void {
  const limits = { ...defaultHttpLimits, ...context.config.server.http };
  const socketsByKey = new Map<string, number>();

  app.route({
    method: 'GET',
    url: '/v1/responses',
    handler: async () => {
      throw new GatewayError('method_not_allowed', 'GET /v1/responses is the Responses API’s WebSocket mode: connect with Upgrade: websocket, or create a response with POST', {
        headers: { allow: 'POST' },
      });
    },
    wsHandler: (socket: WebSocket, request: FastifyRequest) => {
      // The upgrade is one HTTP exchange that no `onResponse` hook sees (the reply is hijacked):
      // it is counted when the connection ends, as a stream is when its last byte is written.
      const connectedAt = performance.now();
      // Backpressure, as for SSE: past the high-water mark, the next event waits until this one is
      // written, so a client that reads slowly holds the upstream back instead of the memory.
      const send = (message: unknown): Promise<void> | undefined => {
        if (socket.readyState !== socket.OPEN) return undefined;
        if (socket.bufferedAmount < sendHighWaterBytes) {
          socket.send(JSON.stringify(message));
          return undefined;
        }
        return new Promise((resolve) => socket.send(JSON.stringify(message), () => resolve()));
      };
      const sendError = (error: unknown, requestId: string) => {
        const gatewayError = toGatewayError(error);
        // The levels of the HTTP twin: a refusal is no fault of ours, whichever way it arrives.
        logFailure(request.log, error, gatewayError, 'websocket response', { requestId });
        countRateLimitRefusal(context.metrics, gatewayError);
        const { error: body } = renderError(gatewayError, requestId, 'openai') as { error: Record<string, unknown> };
        send({ type: 'error', status: gatewayError.status, error: body });
      };
      const refuse = (error: GatewayError, code = closePolicy) => {
        sendError(error, request.id);
        socket.close(code, error.code);
      };

      const presentedKey = readPresentedKey(request.headers);
      let principal: Principal | undefined;
      let released = true;
      const controller = new AbortController();
      const turns = new ConnectionTurns();
      let queue: Promise<void> = Promise.resolve();
      let running = 0;
      let draining = false;
      let cut = false;
      let idle: NodeJS.Timeout | undefined;
      const armIdle = () => {
        if (idle) clearTimeout(idle);
        idle = running > 0 ? undefined : setTimeout(() => socket.close(closeNormal, 'idle timeout'), limits.socketIdleTimeoutMs);
      };
      const closeWhenDone = () => {
        if (draining && running === 0) socket.close(closeGoingAway, 'server shutting down');
      };
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const untrack = context.lifecycle.track({
        drain: () => {
          draining = true;
          closeWhenDone();
        },
        cut: () => {
          draining = true;
          cut = true;
          controller.abort();
          closeWhenDone();
          // A client that does not answer the closing handshake is not waited for (ws would wait 30 s).
          const force = setTimeout(() => socket.terminate(), cutCloseMs);
          void closed.then(() => clearTimeout(force));
          return closed;
        },
      });

      // Messages that arrive while the key is being checked wait for it.
      const authenticated = authenticateKey(context.store.db, context.keyCache, presentedKey).then(
        (found) => {
          if (context.lifecycle.draining) {
            refuse(shuttingDown(), closeGoingAway);
            return undefined;
          }
          const open = socketsByKey.get(found.keyId) ?? 0;
          if (open >= limits.maxSocketsPerKey) {
            refuse(
              new GatewayError('rate_limited', `This key has ${open} WebSockets open, the most allowed at once: close some before opening more`, {
                metadata: { limit_type: 'open_sockets' },
              }),
            );
            return undefined;
          }
          socketsByKey.set(found.keyId, open + 1);
          released = false;
          principal = found;
          armIdle();
          return found;
        },
        (error: unknown) => {
          refuse(toGatewayError(error));
          return undefined;
        },
      );

      socket.on('message', (data, isBinary) => {
        if (draining) {
          sendError(shuttingDown(), context.createId('req'));
          return;
        }
        // Responses run one at a time; a client that sends faster than they finish is bounded here, not in memory.
        if (running >= maxQueuedResponses) {
          sendError(
            new GatewayError('rate_limited', `${running} responses are already waiting or running on this connection, the most allowed: wait for one to end`, {
              metadata: { limit_type: 'queued_responses' },
            }),
            context.createId('req'),
          );
          return;
        }
        running += 1;
        armIdle();
        queue = queue.then(async () => {
          const requestId = context.createId('req');
          let previousId: string | undefined;
          try {
            if (!(await authenticated)) return;
            if (controller.signal.aborted) {
              // Accepted before the shutdown began, but the grace period ran out before its turn.
              if (cut) sendError(shuttingDown(), requestId);
              return;
            }
            // The key as it stands now: revoked or deleted since the upgrade closes the socket;
            // changed limits (rate, prices; funds and spending limits are read at reservation) apply.
            let who: Principal;
            try {
              who = await authenticateKey(context.store.db, context.keyCache, presentedKey);
            } catch (error) {
              refuse(toGatewayError(error));
              return;
            }
            const text = isBinary ? null : data.toString();
            const message = parseMessage(text);
            const { type: _type, ...body } = message;
            previousId = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
            await runSocketResponse(context, {
              requestId,
              principal: who,
              body,
              bytes: Buffer.byteLength(text ?? ''),
              lookup: async (id) => turns.get(id) ?? findPriorTurn(context, who, id),
              onFinished: (response, inputItems) => {
                if (response.status === 'failed') {
                  if (previousId) turns.forget(previousId);
                } else turns.remember(response.id, { inputItems, output: response.output });
              },
              send,
              signal: controller.signal,
              cutByShutdown: () => cut,
            });
          } catch (error) {
            if (previousId) turns.forget(previousId);
            if (cut) sendError(shuttingDown(), requestId);
            else if (!controller.signal.aborted) sendError(error, requestId);
          } finally {
            running -= 1;
            armIdle();
            closeWhenDone();
          }
        });
      });

      socket.on('close', () => {
        context.metrics.observeHttp(request.routeOptions.url ?? 'unmatched', request.method, 101, (performance.now() - connectedAt) / 1000);
        controller.abort();
        untrack();
        if (idle) clearTimeout(idle);
        if (principal && !released) {
          released = true;
          const left = (socketsByKey.get(principal.keyId) ?? 1) - 1;
          if (left <= 0) socketsByKey.delete(principal.keyId);
          else socketsByKey.set(principal.keyId, left);
        }
      });
      // Errors on the socket (malformed frames, a lost connection) are logged by `answerSocketError`.
    },
  });
}

/** A client message: a JSON object of type `response.create`. */
function parseMessage(text: string | null): Record<string, unknown> {
  if (text === null) throw invalidRequest('WebSocket messages must be text frames holding JSON');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw invalidRequest('WebSocket message is not valid JSON');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw invalidRequest('WebSocket message must be a JSON object');
  const type = (message as { type?: unknown }).type;
  if (type !== 'response.create') throw invalidRequest(`WebSocket message type must be 'response.create', got ${JSON.stringify(type ?? null)}`, 'type');
  return message as Record<string, unknown>;
}
