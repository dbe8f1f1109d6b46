import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { Principal } from '../../auth/principal.js';
import { createApiKey } from '../../accounts/create-api-key.js';
import { actorOf, recordAudit } from '../../audit/record-audit.js';
import { GatewayError, notFound } from '../../errors/gateway-error.js';
import { findActiveKey, listActiveKeys, revokeKey, updateKeyLimits } from '../../store/repositories/api-keys.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';
import { decodeLimits } from './decode-limits.js';
import { setKeyLimitReset } from '../../billing/db/key-periods.js';
import { periodStart } from '../../billing/limit-periods.js';
import { keyCreatorFilter } from './key-creator-filter.js';
import { forgetKeyAuthority } from './forget-key-authority.js';
import { encodeKey, encodeKeys } from './encode-key.js';
import { CreateKeyBody, UpdateKeyLimitBody, type CreateKeyInput, type LimitFieldsInput } from './key-schemas.js';

const KeyParams = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * Key management (docs/api-decisions.md §5): management keys and owner, admin and member
 * sessions (`people/role-policy.ts`), always scoped to the caller's account, and for a `member`
 * to the keys it made (`key-creator-filter.ts`); and `GET /key`, any key's view of itself.
 */
export function registerKeyRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'management' as const };
  const { db } = context.store;
  /**
   * A key's row (its `reserved`) and the fund leases of it (`leasedOfKeys`) read in one snapshot:
   * on PostgreSQL another instance may give a lease back between two plain reads, and the key would
   * then look as if a running request held that amount (`limit_remaining` too low, down to 0).
   */
  const inOneSnapshot = <T>(read: (snapshot: typeof db) => Promise<T>): Promise<T> =>
    context.store.dialect === 'postgres' ? db.transaction().setIsolationLevel('repeatable read').execute((trx) => read(trx)) : read(db);

  /**
   * A member's session sees only the keys it made: another's key is 404, as if missing. A
   * management key is the owner's credential: an admin's or member's session may not change it.
   */
  const requireManageableKey = async (principal: Principal, keyId: string): Promise<void> => {
    if (!principal.session) return;
    const key = await findActiveKey(db, principal.accountId, keyId);
    const creator = keyCreatorFilter(principal);
    if (!key || (creator !== undefined && key.createdByUserId !== creator)) throw notFound(`Key '${keyId}'`);
    if (key.management && principal.session.role !== 'owner') throw new GatewayError('forbidden', `Only an owner changes a management key; yours is ${principal.session.role}`);
  };

  app.post<{ Body: CreateKeyInput }>('/v1/keys', { schema: { body: CreateKeyBody }, config }, async (request, reply) => {
    const principal = request.principal!;
    // A management key has the owner's power over billing and members: only an owner (or a
    // management key) makes one, so that an admin or member cannot raise itself above its role.
    if (request.body.management === true && principal.session && principal.session.role !== 'owner') {
      throw new GatewayError('forbidden', `Only an owner makes management keys; yours is ${principal.session.role}`);
    }
    const limits = decodeLimits(context.catalog, request.body);
    const { record, secret } = await db.transaction().execute(async (trx) => {
      const created = await createApiKey(trx, context, {
        accountId: principal.accountId,
        name: request.body.name ?? 'key',
        management: request.body.management ?? false,
        spendLimit: limits.spendLimit,
        maxPrice: limits.maxPrice,
        modelMaxPrices: limits.modelMaxPrices,
        requestsPerMinute: limits.requestsPerMinute,
        limitReset: request.body.limit_reset,
        cache: limits.cache,
        createdByUserId: principal.session?.userId ?? null,
      });
      // The settings as sent (never the secret): what the key was made with.
      const details = { ...request.body, name: created.record.name, management: created.record.management };
      await recordAudit(trx, { id: context.createId('aud'), accountId: principal.accountId, at: created.record.createdAt, actor: actorOf(principal), action: 'key.create', target: created.record.id, ip: request.ip, details });
      return created;
    });
    return reply.code(201).send({ data: encodeKey(record, context.clock.now()), key: secret });
  });

  app.get<{ Querystring: PageQuery }>('/v1/keys', { schema: { querystring: PageQuery }, config }, async (request) => {
    const limit = request.query.limit ?? defaultPageSize;
    return inOneSnapshot(async (snapshot) => {
      const keys = await listActiveKeys(snapshot, request.principal!.accountId, { limit: limit + 1, cursor: request.query.cursor, createdBy: keyCreatorFilter(request.principal!) });
      const page = toPage(keys, limit, (key) => key.id);
      return { data: await encodeKeys(snapshot, request.principal!.accountId, page.data, context.clock.now()), next_cursor: page.next_cursor };
    });
  });

  // The calling key's own object, for any key (OpenRouter's GET /api/v1/key): an ordinary key learns its limit and what is left after a 402.
  app.get('/v1/key', { config: { auth: 'key' } }, async (request) => {
    const { accountId, keyId } = request.principal!;
    return inOneSnapshot(async (snapshot) => {
      const key = await findActiveKey(snapshot, accountId, keyId);
      if (!key) throw notFound('Key');
      return { data: (await encodeKeys(snapshot, accountId, [key], context.clock.now()))[0] };
    });
  });

  app.patch<{ Params: { key_id: string }; Body: LimitFieldsInput }>(
    '/v1/keys/:key_id/limit',
    { schema: { params: KeyParams, body: UpdateKeyLimitBody }, config },
    async (request) => {
      const { accountId } = request.principal!;
      await requireManageableKey(request.principal!, request.params.key_id);
      const changes = decodeLimits(context.catalog, request.body);
      await db.transaction().execute(async (trx) => {
        if (!(await updateKeyLimits(trx, accountId, request.params.key_id, changes))) throw notFound(`Key '${request.params.key_id}'`);
        const reset = request.body.limit_reset;
        if (reset !== undefined) {
          // What the limit counts changes (issue 49): this period's usage, or the lifetime usage.
          const now = context.clock.now();
          const start = reset === null ? null : periodStart(reset, now).toISOString();
          const change = { accountId, keyId: request.params.key_id, reset, periodStart: start, postgres: context.store.dialect === 'postgres' };
          if (!(await setKeyLimitReset(trx, change))) throw notFound(`Key '${request.params.key_id}'`);
        }
        await recordAudit(trx, { id: context.createId('aud'), accountId, at: context.clock.now().toISOString(), actor: actorOf(request.principal!), action: 'key.limit', target: request.params.key_id, ip: request.ip, details: { ...request.body } });
      });
      await forgetKeyAuthority(context, request.params.key_id);
      return inOneSnapshot(async (snapshot) => {
        const key = await findActiveKey(snapshot, accountId, request.params.key_id);
        if (!key) throw notFound(`Key '${request.params.key_id}'`);
        return { data: (await encodeKeys(snapshot, accountId, [key], context.clock.now()))[0] };
      });
    },
  );

  app.delete<{ Params: { key_id: string } }>('/v1/keys/:key_id', { schema: { params: KeyParams }, config }, async (request) => {
    await requireManageableKey(request.principal!, request.params.key_id);
    const principal = request.principal!;
    const at = context.clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      if (!(await revokeKey(trx, principal.accountId, request.params.key_id, at))) throw notFound(`Key '${request.params.key_id}'`);
      await recordAudit(trx, { id: context.createId('aud'), accountId: principal.accountId, at, actor: actorOf(principal), action: 'key.revoke', target: request.params.key_id, ip: request.ip });
    });
    await forgetKeyAuthority(context, request.params.key_id);
    return { data: { id: request.params.key_id, revoked: true } };
  });
}
