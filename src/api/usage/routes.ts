import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { sumUsage } from '../../store/repositories/usage-rollups.js';
import { dayMs, decodeDayRange, formatUtcDay, startOfUtcDay } from '../shared/decode-date-range.js';
import { encodeUsageRow, encodeUsageRows, totalOf } from './encode-usage.js';

const UsageQuery = Type.Object(
  { from: Type.Optional(Type.String({ maxLength: 40 })), to: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
);
type UsageQuery = Static<typeof UsageQuery>;

const defaultDays = 30;
const maxDays = 366;

/**
 * `GET /usage?from=&to=` (contract §5): spending by day, model, provider and key, read from the
 * daily rollups only (never from the request log, which grows without bound). Ordinary keys
 * see their own key's rows.
 */
export function registerUsageRoutes(app: FastifyInstance, context: AppContext): void {
  app.get<{ Querystring: UsageQuery }>('/v1/usage', { schema: { querystring: UsageQuery }, config: { auth: 'key' } }, async (request) => {
    const principal = request.principal!;
    const today = startOfUtcDay(context.clock.now().getTime());
    const range = decodeDayRange(request.query, { to: today, from: (toMs) => toMs - (defaultDays - 1) * dayMs }, maxDays);
    const filter = {
      accountId: principal.accountId,
      keyId: principal.management ? undefined : principal.keyId,
      from: formatUtcDay(range.startMs),
      to: formatUtcDay(range.endMs - dayMs),
    };
    const [byDay, byModel, byProvider, byKey] = await Promise.all([
      sumUsage(context.store.db, filter, 'day'),
      sumUsage(context.store.db, filter, 'model'),
      sumUsage(context.store.db, filter, 'provider'),
      sumUsage(context.store.db, filter, 'key_id'),
    ]);
    return {
      data: {
        total: encodeUsageRow(totalOf(byDay)),
        by_day: encodeUsageRows(byDay, 'day'),
        by_model: encodeUsageRows(byModel, 'model'),
        by_provider: encodeUsageRows(byProvider, 'provider'),
        by_key: encodeUsageRows(byKey, 'key_id'),
      },
    };
  });
}
