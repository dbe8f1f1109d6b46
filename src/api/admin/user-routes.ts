import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { addMember, encodeAddedMember } from '../../people/add-member.js';
import { describeAuthSettings } from '../../people/describe-auth-settings.js';
import { listUsersPage } from '../../people/list-users.js';
import { defaultPageSize } from '../shared/pagination.js';

const UserListQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 254 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
type UserListQuery = Static<typeof UserListQuery>;
const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const MemberBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')], { description: 'one of owner, admin, member, viewer' }),
  },
  { additionalProperties: false },
);
type MemberBody = Static<typeof MemberBody>;

/**
 * The operator's view of people (contract §7): users with their accounts and roles, the sign-in
 * settings, and adding a person to an account by address (how people come in while sign-up is closed).
 */
export function registerAdminUserRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'admin' as const };
  for (const prefix of ['/admin', '/v1/admin']) {
    app.get<{ Querystring: UserListQuery }>(`${prefix}/users`, { schema: { querystring: UserListQuery }, config }, async (request) =>
      listUsersPage(context.store.db, { email: request.query.email, limit: request.query.limit ?? defaultPageSize, cursor: request.query.cursor }),
    );
    app.get(`${prefix}/auth-settings`, { config }, async () => ({ data: describeAuthSettings(context.config) }));
    app.post<{ Params: { id: string }; Body: MemberBody }>(
      `${prefix}/accounts/:id/members`,
      { schema: { params: AccountParams, body: MemberBody }, config },
      async (request, reply) => {
        const added = await addMember(context, { accountId: request.params.id, email: request.body.email, role: request.body.role });
        return reply.status(201).send({ data: encodeAddedMember(added) });
      },
    );
  }
}
