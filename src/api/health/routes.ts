import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError } from '../../errors/gateway-error.js';

/** Liveness and readiness probes, outside /v1 and without auth (docs/api-decisions.md §1). */
export function registerHealthRoutes(app: FastifyInstance, context: AppContext): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async () => {
    // First, and without a store round trip: the balancer must see it for the whole drain period.
    if (context.lifecycle.draining) throw new GatewayError('service_unavailable', 'This instance is shutting down: send requests to another one');
    if (!(await context.store.ping())) throw new GatewayError('service_unavailable', 'Database is not reachable');
    if (!(await context.counters.ping())) throw new GatewayError('service_unavailable', 'Redis is not reachable');
    // Charges and request log rows that cannot be written: the instance must not take traffic.
    if (!context.requestLog.healthy()) throw new GatewayError('service_unavailable', 'The request log writer is stuck');
    return { status: 'ready' };
  });
}
