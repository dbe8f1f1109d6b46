import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

/** The entry's stored text when it has not expired at `nowMs`; the account is compared by the caller too. */
export async function readCacheEntry(db: Kysely<Database>, key: string, nowMs: number): Promise<string | undefined> {
  const row = await db.selectFrom('response_cache').select(['entry']).where('key', '=', key).where('expires_at', '>', nowMs).executeTakeFirst();
  return row?.entry;
}

/** Stores (or replaces: a later identical answer is as good) the entry. */
export async function writeCacheEntry(db: Kysely<Database>, entry: { key: string; accountId: string; text: string; storedAt: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('response_cache')
    .values({ key: entry.key, account_id: entry.accountId, entry: entry.text, stored_at: entry.storedAt, expires_at: entry.expiresAt })
    .onConflict((conflict) =>
      conflict.column('key').doUpdateSet((eb) => ({ account_id: eb.ref('excluded.account_id'), entry: eb.ref('excluded.entry'), stored_at: eb.ref('excluded.stored_at'), expires_at: eb.ref('excluded.expires_at') })),
    )
    .execute();
}

/**
 * Deletes up to `limit` expired entries, the oldest expiry first (the index on `expires_at`),
 * and says how many: one short statement, so a sweep never holds the table long.
 */
export async function deleteExpiredCacheEntries(db: Kysely<Database>, nowMs: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('response_cache')
    .where('key', 'in', (query) => query.selectFrom('response_cache').select('key').where('expires_at', '<=', nowMs).orderBy('expires_at').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
