import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { moderateContent } from '../../moderations/moderate-content.js';
import { decodeModerationRequest, defaultModerationModel } from './decode-moderation-request.js';

/**
 * POST /v1/moderations in OpenAI's shape: `{id, model, results}`, the results as the provider
 * answered them (OpenAI's `flagged`, `categories`, `category_scores`,
 * `category_applied_input_types`), `model` the gateway's model id and `id` the request id (as
 * `GET /requests/{id}` finds it). The charge is in `x-switchyard-cost` (USD) and in the request log.
 */
export function registerModerationRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/moderations', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const principal = request.principal!;
    // The row names the model that served the request also when the body left it to the default.
    const logged = body.model === undefined || body.model === null ? { ...body, model: defaultModerationModel(context.catalog) } : body;
    const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/moderations', body: logged });
    const signal = abortOnClientClose(reply);
    let outcome: Awaited<ReturnType<typeof moderateContent>>;
    try {
      const decoded = decodeModerationRequest(body, context.catalog);
      outcome = await moderateContent(context, { principal, requestId: request.id, route: decoded.route, request: decoded.request, signal, record });
    } catch (error) {
      await record.failed(error);
      throw error;
    }
    record.settled(outcome.candidate, { usage: outcome.usage, cost: outcome.cost, status: 'completed' });
    await record.admitted;
    return reply
      .header('x-switchyard-provider', outcome.candidate.provider.id)
      .header('x-switchyard-cost', String(nanoToUsd(outcome.cost)))
      .send({ id: request.id, model: outcome.candidate.model.id, results: outcome.result.results });
  });
}
