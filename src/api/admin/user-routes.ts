import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
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

/** The operator's view of people (contract §7): users with their accounts and roles, and the sign-in settings. */
export function registerAdminUserRoutes(app: FastifyInstance, context: AppContext): void {
  const config = { auth: 'admin' as const };
  for (const prefix of ['/admin', '/v1/admin']) {
    app.get<{ Querystring: UserListQuery }>(`${prefix}/users`, { schema: { querystring: UserListQuery }, config }, async (request) =>
      listUsersPage(context.store.db, { email: request.query.email, limit: request.query.limit ?? defaultPageSize, cursor: request.query.cursor }),
    );
    app.get(`${prefix}/auth-settings`, { config }, async () => ({ data: describeAuthSettings(context.config) }));
  }
}
