import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { isEndpointAvailable } from '../../catalog/catalog.js';
import { invalidRequest } from '../../errors/gateway-error.js';
import { actorOf, recordAudit } from '../../audit/record-audit.js';
import { deleteDefaultProvider, listDefaultProviders, upsertDefaultProvider } from '../../store/repositories/default-providers.js';
import { encodePricing } from '../catalog/encode-model.js';

const DefaultProviderBody = Type.Object(
  { model: Type.String({ minLength: 1 }), provider: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) },
  { additionalProperties: false },
);

/** Provider options per model, and the account's default provider for each (docs/api-decisions.md §3). */
export function registerProviderRoutes(app: FastifyInstance, context: AppContext): void {
  const { catalog } = context;
  const config = { auth: 'key' as const };

  app.get('/v1/providers', { config }, async (request) => {
    const defaults = await listDefaultProviders(context.store.db, request.principal!.accountId);
    return {
      data: catalog.models.map((model) => ({
        model: model.id,
        default_provider: defaults.get(model.id) ?? null,
        providers: model.endpoints
          .filter((endpoint) => isEndpointAvailable(catalog, endpoint))
          .map((endpoint) => ({
            provider: endpoint.provider,
            provider_name: catalog.providerById.get(endpoint.provider)?.name ?? endpoint.provider,
            pricing: encodePricing(endpoint.pricing),
          })),
      })),
      next_cursor: null,
    };
  });

  app.patch<{ Body: { model: string; provider: string | null } }>('/v1/providers', { schema: { body: DefaultProviderBody }, config }, async (request) => {
    const { model: modelId, provider } = request.body;
    const model = catalog.modelById.get(modelId);
    if (!model) throw invalidRequest(`Unknown model '${modelId}'`, 'model');
    const { accountId } = request.principal!;
    if (provider !== null && !model.endpoints.some((endpoint) => endpoint.provider === provider)) {
      throw invalidRequest(`Provider '${provider}' does not serve model '${modelId}'`, 'provider');
    }
    const at = context.clock.now().toISOString();
    await context.store.db.transaction().execute(async (trx) => {
      if (provider === null) await deleteDefaultProvider(trx, accountId, modelId);
      else await upsertDefaultProvider(trx, { accountId, model: modelId, provider, updatedAt: at });
      const details = { model: modelId, provider };
      await recordAudit(trx, { id: context.createId('aud'), accountId, at, actor: actorOf(request.principal!), action: 'provider.default', target: modelId, ip: request.ip, details });
    });
    context.defaultProviders.invalidate(accountId);
    return { data: { model: modelId, default_provider: provider } };
  });
}
