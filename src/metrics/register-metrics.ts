import type { FastifyInstance } from 'fastify';
import { countRateLimitRefusal } from './count-rate-limit-refusal.js';
import type { Metrics } from './metrics.js';

/**
 * `GET /metrics` (Prometheus text format) behind the admin token, and the two hooks that count
 * every HTTP answer and every rate-limit refusal. Routes are labelled by their pattern
 * (`/v1/keys/:key_id`), never the raw URL, so label cardinality stays bounded.
 */
export function registerMetrics(app: FastifyInstance, context: { metrics: Metrics }): void {
  const { metrics } = context;
  // A callback hook: counting needs no promise.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onError', async (_request, _reply, error) => {
    countRateLimitRefusal(metrics, error);
  });
  app.get('/metrics', { config: { auth: 'admin' }, schema: { summary: 'Prometheus metrics of this instance (admin token)' } }, async (_request, reply) => {
    const { contentType, body } = await metrics.expose();
    return reply.type(contentType).send(body);
  });
}
