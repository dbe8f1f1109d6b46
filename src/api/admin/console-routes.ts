import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { adminActor, recordAudit } from '../../audit/record-audit.js';
import { notFound } from '../../errors/gateway-error.js';
import { findAccount, listAccounts } from '../../store/repositories/accounts.js';
import { listActiveKeys, revokeKey } from '../../store/repositories/api-keys.js';
import { encodeKeys } from '../keys/encode-key.js';
import { forgetKeyAuthority } from '../keys/forget-key-authority.js';
import { encodeAccount } from '../shared/encode-account.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';
import { buildUsageReport } from '../usage/build-usage-report.js';
import { UsageQuery } from '../usage/routes.js';
import { readProviderHealth } from './read-provider-health.js';

const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), key_id: Type.String({ minLength: 1, maxLength: 100 }) });
const AccountListQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
type AccountListQuery = Static<typeof AccountListQuery>;

/**
 * What the operator console reads beside the contract's admin calls: accounts (list and
 * search), one account's keys (list, revoke) and usage, and provider health. Same token, same
 * prefixes (/admin and /v1/admin) and same list conventions as the rest of the API.
 */
export function registerAdminConsoleRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'admin' as const };
  const { db } = context.store;
  const requireAccount = async (id: string) => {
    if (!(await findAccount(db, id))) throw notFound(`Account '${id}'`);
  };

  for (const prefix of ['/admin', '/v1/admin']) {
    app.get<{ Querystring: AccountListQuery }>(`${prefix}/accounts`, { schema: { querystring: AccountListQuery }, config }, async (request) => {
      const limit = request.query.limit ?? defaultPageSize;
      const search = request.query.search?.trim() || undefined;
      const rows = await listAccounts(db, context.store.dialect, { search, limit: limit + 1, cursor: request.query.cursor });
      const page = toPage(rows, limit, (account) => account.id);
      return { data: page.data.map(encodeAccount), next_cursor: page.next_cursor };
    });

    app.get<{ Params: { id: string }; Querystring: PageQuery }>(
      `${prefix}/accounts/:id/keys`,
      { schema: { params: AccountParams, querystring: PageQuery }, config },
      async (request) => {
        await requireAccount(request.params.id);
        const limit = request.query.limit ?? defaultPageSize;
        const keys = await listActiveKeys(db, request.params.id, { limit: limit + 1, cursor: request.query.cursor });
        const page = toPage(keys, limit, (key) => key.id);
        return { data: await encodeKeys(db, request.params.id, page.data, context.clock.now()), next_cursor: page.next_cursor };
      },
    );

    app.delete<{ Params: { id: string; key_id: string } }>(`${prefix}/accounts/:id/keys/:key_id`, { schema: { params: KeyParams }, config }, async (request) => {
      const at = context.clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        if (!(await revokeKey(trx, request.params.id, request.params.key_id, at))) throw notFound(`Key '${request.params.key_id}'`);
        await recordAudit(trx, { id: context.createId('aud'), accountId: request.params.id, at, actor: adminActor, action: 'key.revoke', target: request.params.key_id, ip: request.ip });
      });
      await forgetKeyAuthority(context, request.params.key_id);
      return { data: { id: request.params.key_id, revoked: true } };
    });

    app.get<{ Params: { id: string }; Querystring: UsageQuery }>(
      `${prefix}/accounts/:id/usage`,
      { schema: { params: AccountParams, querystring: UsageQuery }, config },
      async (request) => {
        await requireAccount(request.params.id);
        return { data: await buildUsageReport(db, { accountId: request.params.id, nowMs: context.clock.now().getTime() }, request.query) };
      },
    );

    app.get(`${prefix}/providers/health`, { config }, async () => ({ data: readProviderHealth(context) }));
  }
}
