import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { listMovements } from '../../billing/db/list-movements.js';
import { encodeMovement } from '../shared/encode-movements.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';

/**
 * `GET /v1/credits/transactions` (contract §7): every money movement of the account (top-ups,
 * refunds, disputes, codes, bonuses, grants), newest first, paged (§2). Their sum is
 * `total_credits` of `GET /v1/credits`: both read the same ledger entries. Management keys only,
 * like the rest of the account's billing.
 */
export function registerTransactionRoutes(app: FastifyInstance, context: AppContext): void {
  app.get<{ Querystring: PageQuery }>('/v1/credits/transactions', { schema: { querystring: PageQuery }, config: { auth: 'management' } }, async (request) => {
    const limit = request.query.limit ?? defaultPageSize;
    const rows = await listMovements(context.store.db, request.principal!.accountId, { limit: limit + 1, cursor: request.query.cursor });
    const page = toPage(rows, limit, (row) => row.id);
    return { data: page.data.map(encodeMovement), next_cursor: page.next_cursor };
  });
}
