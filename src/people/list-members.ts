import type { AppContext } from '../app-context.js';
import { nanoToUsd } from '../core/money.js';
import { usageByCreator } from '../store/repositories/api-keys.js';
import { listAccountMembers } from '../store/repositories/memberships.js';

/**
 * A page of `GET /v1/members` (contract §8). `usage` is what the keys the member made in the
 * account have spent (lifetime, revoked keys included). Member limits are not built yet: `limit`
 * and `limit_reset` are null for every member until they are (they will live on the membership).
 */
export async function listMembersPage(
  context: Pick<AppContext, 'store'>,
  accountId: string,
  query: { limit: number; cursor?: string; only?: string },
): Promise<{ data: Array<Record<string, unknown>>; next_cursor: string | null }> {
  const { db } = context.store;
  const rows = await listAccountMembers(db, accountId, { limit: query.limit + 1, cursor: query.cursor, only: query.only });
  const page = rows.slice(0, query.limit);
  const usage = await usageByCreator(db, accountId, page.map((member) => member.userId));
  return {
    data: page.map((member) => ({
      user_id: member.userId,
      name: member.name,
      email: member.email,
      role: member.role,
      limit: null,
      limit_reset: null,
      usage: nanoToUsd(usage.get(member.userId) ?? 0n),
      joined_at: member.joinedAt,
    })),
    next_cursor: rows.length > query.limit ? page[page.length - 1].userId : null,
  };
}
