import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { MemberRole } from '../../auth/principal.js';
import { GatewayError, invalidRequest, notFound } from '../../errors/gateway-error.js';
import { listMembersPage } from '../../people/list-members.js';
import { changeMemberLimit, changeMemberRole, removeMember } from '../../people/manage-members.js';
import type { LimitReset } from '../../billing/limit-periods.js';
import { tryUsdToNano } from '../../core/money.js';
import { listKeyIdsCreatedBy } from '../../store/repositories/api-keys.js';
import { acceptInvite, createInvite, describeInvite, encodeInvite, withdrawInvite } from '../../people/member-invites.js';
import { listPendingInvites } from '../../store/repositories/member-invites.js';
import { findUser } from '../../store/repositories/users.js';
import { requireSession } from '../auth/session-cookie.js';
import { forgetKeyAuthority } from '../keys/forget-key-authority.js';
import { defaultPageSize, PageQuery, toPage } from '../shared/pagination.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')]);
const InviteBody = Type.Object({ email: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })), role: Role }, { additionalProperties: false });
const Reset = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly'), Type.Null()]);
const PatchBody = Type.Object(
  { role: Type.Optional(Role), limit: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])), limit_reset: Type.Optional(Reset) },
  { additionalProperties: false },
);
const UserParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 100 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Members and invites (contract §8). The `/v1/members…` routes take a management key or a
 * session (roles in `people/role-policy.ts`, finer rules in `people/manage-members.ts`); the
 * invite link's own routes take the token, and acceptance a session with its CSRF token.
 */
export function registerMemberRoutes(app: FastifyInstance, context: AppContext): void {
  const management = { auth: 'management' as const };
  const { db } = context.store;

  app.get<{ Querystring: PageQuery }>('/v1/members', { schema: { querystring: PageQuery }, config: management }, async (request) =>
    listMembersPage(context, request.principal!.accountId, { limit: request.query.limit ?? defaultPageSize, cursor: request.query.cursor }),
  );

  app.post<{ Body: { email?: string; role: MemberRole } }>('/v1/members/invites', { schema: { body: InviteBody }, config: management }, async (request, reply) => {
    const { invite, url } = await createInvite(context, request.principal!, { email: request.body.email, role: request.body.role, ip: request.ip });
    return reply.code(201).send({ data: { id: invite.id, url, expires_at: invite.expiresAt } });
  });

  app.get<{ Querystring: PageQuery }>('/v1/members/invites', { schema: { querystring: PageQuery }, config: management }, async (request) => {
    const limit = request.query.limit ?? defaultPageSize;
    const rows = await listPendingInvites(db, request.principal!.accountId, context.clock.now().toISOString(), { limit: limit + 1, cursor: request.query.cursor });
    const page = toPage(rows, limit, (invite) => invite.id);
    return { data: page.data.map(encodeInvite), next_cursor: page.next_cursor };
  });

  app.delete<{ Params: { id: string } }>('/v1/members/invites/:id', { schema: { params: IdParams }, config: management }, async (request) => {
    await withdrawInvite(context, request.principal!, request.params.id, request.ip);
    return { data: { id: request.params.id, revoked: true } };
  });

  app.patch<{ Params: { user_id: string }; Body: { role?: MemberRole; limit?: number | null; limit_reset?: LimitReset | null } }>(
    '/v1/members/:user_id',
    { schema: { params: UserParams, body: PatchBody }, config: management },
    async (request) => {
      const { user_id: userId } = request.params;
      const { role, limit, limit_reset: reset } = request.body;
      if (role !== undefined) await changeMemberRole(context, request.principal!, userId, role, request.ip);
      if (limit !== undefined || reset !== undefined) {
        const nano = limit === undefined || limit === null ? limit : tryUsdToNano(limit);
        if (nano === undefined && limit !== undefined) throw invalidRequest('limit: at most 9 decimal places of USD');
        const details = { ...(limit !== undefined ? { limit } : {}), ...(reset !== undefined ? { limit_reset: reset } : {}) };
        await changeMemberLimit(context, request.principal!, userId, { limit: nano, reset, details }, request.ip);
        // The member's keys' cached authority and leases were sized by the old limit: drop them.
        for (const keyId of await listKeyIdsCreatedBy(db, request.principal!.accountId, userId)) await forgetKeyAuthority(context, keyId);
      }
      const page = await listMembersPage(context, request.principal!.accountId, { limit: 1, cursor: undefined, only: userId });
      if (page.data.length === 0) throw notFound(`Member '${userId}'`);
      return { data: page.data[0] };
    },
  );

  app.delete<{ Params: { user_id: string } }>('/v1/members/:user_id', { schema: { params: UserParams }, config: management }, async (request) => {
    const revoked = await removeMember(context, request.principal!, request.params.user_id, request.ip);
    for (const keyId of revoked) await forgetKeyAuthority(context, keyId);
    return { data: { user_id: request.params.user_id, removed: true, revoked_keys: revoked } };
  });

  // What the invite page shows (account, role, whether it still works), before and after sign-in.
  app.get<{ Params: { token: string } }>('/auth/invites/:token', { schema: { params: TokenParams }, config: { auth: 'none' } }, async (request, reply) => {
    const invite = await describeInvite(context, request.params.token);
    if (!invite) throw new GatewayError('not_found', 'This invite link does not work: ask for a new one');
    reply.header('cache-control', 'no-store');
    return { data: invite };
  });

  app.post<{ Params: { token: string } }>('/invites/:token/accept', { schema: { params: TokenParams }, config: { auth: 'none' } }, async (request) => {
    const { session } = await requireSession(context, request);
    const user = await findUser(db, session.userId);
    if (!user) throw new GatewayError('invalid_api_key', 'Not signed in');
    const joined = await acceptInvite(context, request.params.token, user, request.ip);
    return { data: { account_id: joined.accountId, role: joined.role } };
  });
}
