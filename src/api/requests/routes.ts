import type { FastifyInstance } from 'fastify';
import { readsWholeAccount } from '../../auth/principal.js';
import type { AppContext } from '../../app-context.js';
import { idFloorAt } from '../../core/id-time.js';
import { invalidRequest, notFound } from '../../errors/gateway-error.js';
import { findRequest, listRequests } from '../../billing/db/requests.js';
import { dayMs, parseUtcDay } from '../shared/decode-date-range.js';
import { defaultPageSize, toPage } from '../shared/pagination.js';
import { encodeRequests } from './encode-request.js';
import { RequestListQuery, RequestParams } from './request-schemas.js';

// Request ids are `req_` + time: a day range is an id range (see core/id-time.ts).
const requestIdPrefix = 'req';

/**
 * The request log (docs/api-decisions.md §5): a management key sees the whole account, an ordinary key only
 * its own requests; anything else is 404, indistinguishable from a missing id.
 */
export function registerRequestRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'key' as const };
  const { db } = context.store;

  app.get<{ Params: RequestParams }>('/v1/requests/:request_id', { schema: { params: RequestParams }, config }, async (request) => {
    const principal = request.principal!;
    const record = await findRequest(db, principal.accountId, request.params.request_id, readsWholeAccount(principal) ? undefined : principal.keyId);
    if (!record) throw notFound(`Request '${request.params.request_id}'`);
    return { data: (await encodeRequests(db, principal.accountId, [record]))[0] };
  });

  app.get<{ Querystring: RequestListQuery }>('/v1/requests', { schema: { querystring: RequestListQuery }, config }, async (request) => {
    const principal = request.principal!;
    const query = request.query;
    const startMs = query.from === undefined ? undefined : parseUtcDay(query.from, 'from');
    const toMs = query.to === undefined ? undefined : parseUtcDay(query.to, 'to');
    if (startMs !== undefined && toMs !== undefined && startMs > toMs) throw invalidRequest("'from' must not be after 'to'", 'from');
    // An ordinary key asking for another key's requests gets an empty list, as for a missing key.
    if (!readsWholeAccount(principal) && query.key_id !== undefined && query.key_id !== principal.keyId) return { data: [], next_cursor: null };
    const limit = query.limit ?? defaultPageSize;
    const rows = await listRequests(
      db,
      {
        accountId: principal.accountId,
        keyId: readsWholeAccount(principal) ? query.key_id : principal.keyId,
        model: query.model,
        provider: query.provider,
        status: query.status,
        endUser: query.end_user,
        idFrom: startMs === undefined ? undefined : idFloorAt(requestIdPrefix, startMs),
        idBefore: toMs === undefined ? undefined : idFloorAt(requestIdPrefix, toMs + dayMs),
      },
      { limit: limit + 1, cursor: query.cursor },
      // PostgreSQL's log is partitioned by day: read it a few days at a time (ids carry wall time),
      // the rest of a sparse page with one generic plan.
      context.store.dialect === 'postgres' ? { byDays: Date.now(), pool: context.store.pool } : {},
    );
    const page = toPage(rows, limit, (row) => row.id);
    return { data: await encodeRequests(db, principal.accountId, page.data), next_cursor: page.next_cursor };
  });
}
