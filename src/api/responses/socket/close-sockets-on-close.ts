import type { FastifyInstance } from 'fastify';
import type { ServerLifecycle } from '../../../lifecycle/server-lifecycle.js';

/**
 * `@fastify/websocket`'s `preClose`, which by default closes every client socket the moment the
 * server starts closing (1005, no last event: a rolling restart cut every answer under way). At a
 * graceful shutdown the sockets drain with the lifecycle instead, as SSE streams do: their
 * responses under way finish within the grace period, and Node's `close()` waits for them (an
 * upgraded socket is still one of the server's connections). A close without a drain (a failed
 * start, a test) ends what is under way in-band at once.
 */
export function closeSocketsOnClose(lifecycle: ServerLifecycle) {
  return function preClose(this: FastifyInstance, done: () => void): void {
    if (!lifecycle.draining) void lifecycle.cutAll();
    this.websocketServer.close();
    done();
  };
}
