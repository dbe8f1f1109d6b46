import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../store/database.js';

/** Hits and their savings (nano-USD: the stored cost minus what each hit was charged) added to their days' rows; one row per account, day and key. */
export async function addCacheSavings(db: Kysely<Database>, savings: ReadonlyArray<{ accountId: string; day: string; keyId: string; hits: number; saved: bigint }>): Promise<void> {
  // Sorted, so that instances writing the same rows lock them in the same order.
  const rows = [...savings].sort((left, right) => (left.accountId + left.day + left.keyId < right.accountId + right.day + right.keyId ? -1 : 1));
  await db
    .insertInto('cache_savings')
    .values(rows.map((saving) => ({ account_id: saving.accountId, day: saving.day, key_id: saving.keyId, hits: BigInt(saving.hits), saved: saving.saved })))
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'day', 'key_id']).doUpdateSet((eb) => ({
        hits: eb('cache_savings.hits', '+', eb.ref('excluded.hits')),
        saved: eb('cache_savings.saved', '+', eb.ref('excluded.saved')),
      })),
    )
    .execute();
}

export interface CacheSavingSum {
  /** The UTC day (`YYYY-MM-DD`). */
  day: string;
  hits: number;
  saved: bigint;
}

/** Hits and savings per day of `from`..`to` (inclusive), for the account or one of its keys. */
export async function sumCacheSavings(db: Kysely<Database>, filter: { accountId: string; keyId?: string; from: string; to: string }): Promise<CacheSavingSum[]> {
  let query = db
    .selectFrom('cache_savings')
    .select(['day', sql<string>`sum(hits)`.as('hits'), sql<string>`sum(saved)`.as('saved')])
    .where('account_id', '=', filter.accountId)
    .where('day', '>=', filter.from)
    .where('day', '<=', filter.to);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  const rows = await query.groupBy('day').orderBy('day').execute();
  return rows.map((row) => ({ day: row.day, hits: Number(row.hits), saved: BigInt(row.saved) }));
}
