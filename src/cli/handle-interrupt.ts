import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { ShutdownTimes } from './shut-down-gracefully.js';

/**
 * The shutdown of an interactive stop (SIGINT, Ctrl-C in a terminal): no drain (no load balancer
 * is waiting for `/ready` to turn), and idle connections closed at once rather than left to their
 * keep-alive timeout (a browser tab's kept-alive connection would otherwise hold the stop for
 * seconds). Requests and streams in flight still finish and are settled, within the same grace.
 */
export function interruptTimes(times: ShutdownTimes): ShutdownTimes {
  return { ...times, drainMs: 0, keepAliveTimeoutMs: 50 };
}

/**
 * The SIGINT handler: the first starts `stop`; a second, while requests are still in flight, cuts
 * their connections, so each ends as a client disconnect and is settled for what it generated
 * (the books stay exact) before the store closes; a third exits without waiting, leaving what is
 * unsettled to the sweep of the next start (as after a crash).
 */
export function onInterrupt(app: FastifyInstance, context: AppContext, stop: () => Promise<void>): () => void {
  let interrupts = 0;
  return () => {
    interrupts += 1;
    if (interrupts === 1) {
      process.stderr.write('stopping: requests in flight finish first (Ctrl-C again to stop at once)\n');
      void stop();
    } else if (interrupts === 2) {
      context.logger.warn('second interrupt: cutting the connections still open; their requests are settled for what they generated');
      app.server.closeAllConnections();
    } else {
      process.exit(130);
    }
  };
}
