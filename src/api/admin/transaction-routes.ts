import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { listMovements } from '../../billing/db/list-movements.js';
import { notFound } from '../../errors/gateway-error.js';
import { findAccount } from '../../store/repositories/accounts.js';
import { encodeMovement } from '../shared/encode-movements.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';

const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * `GET /admin/accounts/{id}/transactions`: one account's payments, refunds, disputes, codes,
 * bonuses and grants, as its owner sees them in `GET /v1/credits/transactions`, for the operator
 * console's per-account view and `switchyard admin transactions`.
 */
export function registerAdminTransactionRoutes(app: FastifyInstance, context: AppContext): void {
  for (const prefix of ['/admin', '/v1/admin']) {
    app.get<{ Params: { id: string }; Querystring: PageQuery }>(
      `${prefix}/accounts/:id/transactions`,
      { schema: { params: AccountParams, querystring: PageQuery }, config: { auth: 'admin' } },
      async (request) => {
        if (!(await findAccount(context.store.db, request.params.id))) throw notFound(`Account '${request.params.id}'`);
        const limit = request.query.limit ?? defaultPageSize;
        const rows = await listMovements(context.store.db, request.params.id, { limit: limit + 1, cursor: request.query.cursor });
        const page = toPage(rows, limit, (row) => row.id);
        return { data: page.data.map(encodeMovement), next_cursor: page.next_cursor };
      },
    );
  }
}
