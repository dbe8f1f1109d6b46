import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';

/** How long the sockets cut at the end of the grace period have to send their last event. */
const cutWaitMs = 2_000;

export interface ShutdownTimes {
  /** `/ready` answers 503 this long before the listener closes (SWITCHYARD_SHUTDOWN_DRAIN_MS). */
  drainMs: number;
  /** Then in-flight requests and streams have this long to finish (SWITCHYARD_SHUTDOWN_GRACE_MS). */
  graceMs: number;
  /** The server's keep-alive timeout: idle kept-alive connections are left to it. */
  keepAliveTimeoutMs: number;
}

/**
 * The shutdown a load balancer that follows `/ready` sees no error from:
 *
 * 1. draining: `/ready` answers 503, every request is still served and its answer carries
 *    `Connection: close`, for `drainMs`;
 * 2. the listener closes; connections still open finish their requests (a request arriving on
 *    one is served, with `Connection: close`), and idle kept-alive connections close at their
 *    keep-alive timeout, which the client knows from the `Keep-Alive` header, rather than at
 *    once, which would reset a request the client is sending on one;
 * 3. past `graceMs`, whatever is left is cut (a WebSocket response first ends with
 *    `response.failed`, given up to `cutWaitMs`); then the store and the rest of the context close.
 *
 * WebSockets drain from step 1 (`ServerLifecycle`): responses under way finish, new messages are
 * refused, and each socket closes (1001) once it has nothing under way.
 */
export async function shutDownGracefully(app: FastifyInstance, context: AppContext, times: ShutdownTimes): Promise<void> {
  context.lifecycle.startDraining();
  context.logger.info({ drainMs: times.drainMs }, 'draining: /ready answers 503 until the listener closes');
  if (times.drainMs > 0) await sleep(times.drainMs);

  const server = app.server;
  const closeIdleConnections = server.closeIdleConnections.bind(server);
  // Node's `close()` destroys idle kept-alive sockets at once; left to their own keep-alive
  // timeout instead. Connections that never carried a request have no such timer, so idle ones
  // are swept once per keep-alive period, by when every kept-alive one has timed out by itself.
  server.closeIdleConnections = () => undefined;
  const sweep = setInterval(closeIdleConnections, times.keepAliveTimeoutMs);
  sweep.unref();
  const deadline = setTimeout(() => {
    context.logger.warn('grace period over; closing remaining connections');
    // WebSockets first: each ends its response under way in-band (`response.failed`) and closes.
    void Promise.race([context.lifecycle.cutAll(), sleep(cutWaitMs)]).finally(() => server.closeAllConnections());
  }, times.graceMs);
  deadline.unref();
  context.logger.info({ graceMs: times.graceMs }, 'closing the listener; waiting for requests in flight');
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
