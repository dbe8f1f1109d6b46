import type { ServerResponse } from 'node:http';
import type { StatsRecorder } from './stats.js';

/**
 * The life of one simulated request. Every wait goes through `sleep`, so that when the client
 * goes away the pending timer is cleared at once and the handler learns it should stop.
 */
export interface RequestScope {
  readonly closed: boolean;
  /** Resolves true after `ms`, or false as soon as the connection closes. */
  sleep(ms: number): Promise<boolean>;
  /** Closes the connection on purpose (a `disconnect` fault), which is not a client abort. */
  destroy(): void;
}

export function trackRequest(response: ServerResponse, stats: StatsRecorder, isShuttingDown: () => boolean): RequestScope {
  let closed = false;
  let closedByServer = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: ((completed: boolean) => void) | undefined;
  stats.recordOpened();
  response.once('close', () => {
    closed = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    wake?.(false);
    wake = undefined;
    stats.recordClosed(!response.writableFinished && !closedByServer && !isShuttingDown());
  });
  return {
    get closed() {
      return closed;
    },
    sleep(ms) {
      if (closed) return Promise.resolve(false);
      if (ms <= 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        wake = resolve;
        timer = setTimeout(() => {
          timer = undefined;
          wake = undefined;
          resolve(true);
        }, ms);
      });
    },
    destroy() {
      closedByServer = true;
      response.destroy();
    },
  };
}
