import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../store/database.js';

/** One hit's saving (nano-USD: the stored cost minus what the hit was charged) added to its day's row. */
export async function addCacheSaving(db: Kysely<Database>, saving: { accountId: string; day: string; keyId: string | null; saved: bigint }): Promise<void> {
  await db
    .insertInto('cache_savings')
    .values({ account_id: saving.accountId, day: saving.day, key_id: saving.keyId ?? '', hits: 1n, saved: saving.saved })
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
