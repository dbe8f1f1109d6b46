import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import { listMembershipsOfUsers } from '../store/repositories/memberships.js';
import { listUsers } from '../store/repositories/users.js';

/** One user as the operator sees them (`GET /admin/users`, `switchyard admin users`). */
export interface UserView {
  id: string;
  name: string;
  email: string | null;
  telegram_id: string | null;
  created_at: string;
  accounts: Array<{ id: string; name: string; role: string }>;
}

/**
 * A page of users, newest first, with their accounts and roles; `email` finds the user of that
 * whole address (case folded, as addresses are stored).
 */
export async function listUsersPage(db: Kysely<Database>, query: { email?: string; limit: number; cursor?: string }): Promise<{ data: UserView[]; next_cursor: string | null }> {
  const email = query.email?.trim().toLowerCase() || undefined;
  const rows = await listUsers(db, { email, limit: query.limit + 1, cursor: query.cursor });
  const page = rows.slice(0, query.limit);
  const memberships = await listMembershipsOfUsers(db, page.map((user) => user.id));
  return {
    data: page.map((user) => ({
      id: user.id,
      name: user.name,
      email: user.email,
      telegram_id: user.telegramId,
      created_at: user.createdAt,
      accounts: memberships.filter((membership) => membership.userId === user.id).map((membership) => ({ id: membership.accountId, name: membership.accountName, role: membership.role })),
    })),
    next_cursor: rows.length > query.limit ? page[page.length - 1].id : null,
  };
}
