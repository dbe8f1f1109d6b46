import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';

/**
 * What PostgreSQL's own statistics say about the folded account names, to tell a rare piece of a
 * search from a common one without reading the trigram index: ANALYZE samples the expression of
 * `accounts_name_trgm_idx` (the folded name) like a column, keeping its most common values with
 * their shares and histogram bounds that each stand for an equal share of the rest. Autovacuum
 * keeps them current; nothing of ours maintains them.
 */
export interface NameStatistics {
  /** Accounts in the table as of the last ANALYZE or VACUUM. */
  rows: number;
  common: { name: string; share: number }[];
  bounds: string[];
  /** The share of the table each histogram bound stands for. */
  boundShare: number;
}

/** Statistics change with ANALYZE only; a search reads them from memory this long. */
const keepMs = 60_000;
const cache = new WeakMap<Kysely<Database>, { at: number; statistics: Promise<NameStatistics | undefined> }>();

/**
 * Undefined before the first ANALYZE of the table (or without the trigram index); that answer is
 * not kept, so the statistics are used from the first search after ANALYZE.
 */
export function readNameStatistics(db: Kysely<Database>): Promise<NameStatistics | undefined> {
  const cached = cache.get(db);
  if (cached && Date.now() - cached.at < keepMs) return cached.statistics;
  const statistics = queryNameStatistics(db);
  cache.set(db, { at: Date.now(), statistics });
  // A failed read or a table not analyzed yet is asked again by the next search.
  statistics.then((found) => found ?? cache.delete(db), () => cache.delete(db));
  return statistics;
}

async function queryNameStatistics(db: Kysely<Database>): Promise<NameStatistics | undefined> {
  const result = await sql<{ rows: number; null_share: number; common: string[] | null; shares: number[] | null; bounds: string[] | null }>`
    select c.reltuples as rows, s.null_frac as null_share, s.most_common_vals::text::text[] as common,
           s.most_common_freqs as shares, s.histogram_bounds::text::text[] as bounds
    from pg_stats s join pg_class c on c.oid = to_regclass('accounts')
    where s.schemaname = current_schema() and s.tablename = 'accounts_name_trgm_idx'`.execute(db);
  const row = result.rows[0];
  if (!row || !(row.rows > 0)) return undefined;
  const common = (row.common ?? []).map((name, index) => ({ name, share: row.shares?.[index] ?? 0 }));
  const bounds = row.bounds ?? [];
  const rest = Math.max(0, 1 - row.null_share - common.reduce((sum, value) => sum + value.share, 0));
  return { rows: row.rows, common, bounds, boundShare: bounds.length > 0 ? rest / bounds.length : 0 };
}

/** The estimated number of accounts whose folded name contains `part`. */
export function estimateAccountsContaining(statistics: NameStatistics, part: string): number {
  let share = 0;
  for (const value of statistics.common) if (value.name.includes(part)) share += value.share;
  for (const bound of statistics.bounds) if (bound.includes(part)) share += statistics.boundShare;
  return share * statistics.rows;
}
