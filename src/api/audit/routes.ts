import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { listAudit, type AuditRecord } from '../../audit/list-audit.js';
import { notFound } from '../../errors/gateway-error.js';
import { findAccount } from '../../store/repositories/accounts.js';
import { defaultPageSize, toPage } from '../shared/pagination.js';

const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    action: Type.Optional(Type.String({ pattern: '^[a-z_]+(\\.[a-z_]+)?$', maxLength: 100, description: 'an action such as key.create, or a family such as key' })),
    actor_type: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('admin')], { description: 'one of user, key, admin' })),
    actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
type AuditQuery = Static<typeof AuditQuery>;
const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const encode = (entry: AuditRecord) => ({ id: entry.id, at: entry.at, actor: entry.actor, action: entry.action, target: entry.target, ip: entry.ip, details: entry.details });

/**
 * `GET /v1/audit` (contract §8; owner/admin, or a management key): the account's changes, newest
 * first, paged, filtered by action and actor. `GET /admin/accounts/{id}/audit` answers the same
 * for the operator console. Read-only: no route changes or deletes an entry.
 */
export function registerAuditRoutes(app: FastifyInstance, context: AppContext): void {
  const page = async (accountId: string, query: AuditQuery) => {
    const limit = query.limit ?? defaultPageSize;
    const rows = await listAudit(context.store.db, accountId, { limit: limit + 1, cursor: query.cursor }, { action: query.action, actorType: query.actor_type, actorId: query.actor_id });
    const result = toPage(rows, limit, (row) => row.id);
    return { data: result.data.map(encode), next_cursor: result.next_cursor };
  };
  app.get<{ Querystring: AuditQuery }>('/v1/audit', { schema: { querystring: AuditQuery }, config: { auth: 'management' } }, (request) => page(request.principal!.accountId, request.query));
  for (const prefix of ['/admin', '/v1/admin']) {
    app.get<{ Params: { id: string }; Querystring: AuditQuery }>(
      `${prefix}/accounts/:id/audit`,
      { schema: { params: AccountParams, querystring: AuditQuery }, config: { auth: 'admin' } },
      async (request) => {
        if (!(await findAccount(context.store.db, request.params.id))) throw notFound(`Account '${request.params.id}'`);
        return page(request.params.id, request.query);
      },
    );
  }
}
