import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { readsWholeAccount } from '../../auth/principal.js';
import type { AppContext } from '../../app-context.js';
import { buildUsageReport } from './build-usage-report.js';

export const UsageQuery = Type.Object(
  { from: Type.Optional(Type.String({ maxLength: 40 })), to: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

/**
 * `GET /usage?from=&to=` (docs/api-decisions.md §5): spending by day, model, provider and key, read from the
 * daily rollups only (never from the request log, which grows without bound). Ordinary keys
 * see their own key's rows.
 */
export function registerUsageRoutes(app: FastifyInstance, context: AppContext): void {
  app.get<{ Querystring: UsageQuery }>('/v1/usage', { schema: { querystring: UsageQuery }, config: { auth: 'key' } }, async (request) => {
    const principal = request.principal!;
    const scope = { accountId: principal.accountId, keyId: readsWholeAccount(principal) ? undefined : principal.keyId, nowMs: context.clock.now().getTime() };
    return { data: await buildUsageReport(context.store.db, scope, request.query) };
  });
}
