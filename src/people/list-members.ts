import type { AppContext } from '../app-context.js';
import { periodStart, type LimitReset } from '../billing/limit-periods.js';
import { nanoToUsd } from '../core/money.js';
import { usageByCreator } from '../store/repositories/api-keys.js';
import { listAccountMembers } from '../store/repositories/memberships.js';

/**
 * A page of `GET /v1/members` (contract §8). `usage` is what the keys the member made in the
 * account have spent: lifetime (revoked keys included), or with a `limit_reset` within the current
 * period (a period the roll-over has not reached yet reads as 0, as keys do). `limit` is the
 * member's own limit in USD, or null.
 */
export async function listMembersPage(
  context: Pick<AppContext, 'store' | 'clock'>,
  accountId: string,
  query: { limit: number; cursor?: string; only?: string },
): Promise<{ data: Array<Record<string, unknown>>; next_cursor: string | null }> {
  const { db } = context.store;
  const rows = await listAccountMembers(db, accountId, { limit: query.limit + 1, cursor: query.cursor, only: query.only });
  const page = rows.slice(0, query.limit);
  const now = context.clock.now();
  const usage = await usageByCreator(db, accountId, page.map((member) => member.userId));
  return {
    data: page.map((member) => ({
      user_id: member.userId,
      name: member.name,
      email: member.email,
      role: member.role,
      limit: member.spendLimit === null ? null : nanoToUsd(member.spendLimit),
      limit_reset: member.limitReset,
      usage: nanoToUsd(member.limitReset === null ? (usage.get(member.userId) ?? 0n) : periodUsage(member, now)),
      joined_at: member.joinedAt,
    })),
    next_cursor: rows.length > query.limit ? page[page.length - 1].userId : null,
  };
}

function periodUsage(member: { limitReset: string | null; periodStart: string | null; periodUsage: bigint }, now: Date): bigint {
  const current = periodStart(member.limitReset as LimitReset, now).toISOString();
  return member.periodStart !== null && member.periodStart < current ? 0n : member.periodUsage;
}
