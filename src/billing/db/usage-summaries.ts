import type SqliteDatabase from 'better-sqlite3';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Store } from '../../store/create-store.js';
import type { Database } from '../../store/database.js';
import { coverDays, type Grain, type PeriodRun, type UsageDimension, type UsageSummaryDelta } from './summarize-usage.js';
import { summedCounts, toUsageSum, type UsageSum } from './usage-sums.js';

const rowsPerStatement = 500;

/**
 * Adds summary deltas to their rows, creating missing ones; as `addUsageRollups`, each delta names
 * a distinct row and they come sorted. The books writers have their own statements for the same
 * rows (`books-sqlite.ts`, `books-postgres.ts`); this one serves the backfill and bulk loads.
 */
export async function addUsageSummaries(db: Kysely<Database>, deltas: readonly UsageSummaryDelta[]): Promise<void> {
  for (let start = 0; start < deltas.length; start += rowsPerStatement) {
    await db
      .insertInto('usage_summaries')
      .values(
        deltas.slice(start, start + rowsPerStatement).map((delta) => ({
          account_id: delta.accountId,
          dimension: delta.dimension,
          period: delta.period,
          value: delta.value,
          requests: delta.requests,
          prompt_tokens: delta.promptTokens,
          completion_tokens: delta.completionTokens,
          cost: delta.cost,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['account_id', 'dimension', 'period', 'value']).doUpdateSet((eb) => ({
          requests: eb('usage_summaries.requests', '+', eb.ref('excluded.requests')),
          prompt_tokens: eb('usage_summaries.prompt_tokens', '+', eb.ref('excluded.prompt_tokens')),
          completion_tokens: eb('usage_summaries.completion_tokens', '+', eb.ref('excluded.completion_tokens')),
          cost: eb('usage_summaries.cost', '+', eb.ref('excluded.cost')),
        })),
      )
      .execute();
  }
}

/** Which summary dimension holds each grain of a grouping. */
const dimensions = {
  day: { day: 'day' },
  model: { day: 'model:day', month: 'model:month' },
  provider: { day: 'provider:day', month: 'provider:month' },
  key_id: { day: 'key:day', week: 'key:week', month: 'key:month' },
} as const satisfies Record<string, Partial<Record<Grain, string>>>;

export type SummaryGrouping = keyof typeof dimensions;

/**
 * One account's sums over the inclusive days `from`..`to` grouped by one column, read from the
 * summaries: the range is covered by the grouping's largest periods (`coverDays`), at most five
 * index ranges, so the rows read are about (months + edge weeks + edge days) × groups — never
 * keys × models × days. For `day` the rows are the days themselves.
 */
export async function sumUsageSummaries(db: Kysely<Database>, filter: SummaryFilter, grouping: SummaryGrouping): Promise<UsageSum[]> {
  const rows = await selectUsageSummaries(db, filter, grouping, await hasPendingRollups(db)).execute();
  return rows.map(toUsageSum);
}

export interface SummaryFilter {
  accountId: string;
  from: string;
  to: string;
}

/**
 * The query of `sumUsageSummaries`, unexecuted (its plan is held by a test). Each run of the cover
 * is its own range of the primary key, and the ranges are joined by UNION ALL: they never
 * overlap, so nothing needs removing twice. Written as one WHERE with OR, SQLite took the
 * "multi-index OR" plan, which gathers the matching keys of every range in a temporary table and
 * then looks each row up again; a year's key breakdown (15,000 summary rows) cost 12 ms of the
 * main thread that way against 6.5 ms as ranges read in turn (docs/usage-reports.md).
 *
 * `pending`: the account's rollups of the range that the backfill has not moved into the
 * summaries yet are added (`movePendingRollups`): exact while it runs, and one empty index
 * probe once it is done.
 */
export function selectUsageSummaries(db: Kysely<Database>, filter: SummaryFilter, grouping: SummaryGrouping, pending = false) {
  const byGrain: Partial<Record<Grain, string>> = dimensions[grouping];
  const runs = coverDays(filter.from, filter.to, new Set(Object.keys(byGrain) as Grain[]));
  const column = grouping === 'day' ? 'period' : 'value';
  const range = (run: PeriodRun) =>
    db
      .selectFrom('usage_summaries')
      .select([sql.ref<string>(column).as('group'), 'requests', 'prompt_tokens', 'completion_tokens', 'cost'])
      .where('account_id', '=', filter.accountId)
      .where('dimension', '=', byGrain[run.grain]!)
      .where('period', '>=', run.first)
      .where('period', '<=', run.last);
  let ranges = runs.slice(1).reduce((union, run) => union.unionAll(range(run)), range(runs[0]));
  if (pending) ranges = ranges.unionAll(selectPendingRollups(db, filter, grouping));
  return db.selectFrom(ranges.as('ranges')).select([sql.ref<string>('group').as('group'), ...summedCounts()]).groupBy('group');
}

/** The rollups of `filter` still waiting for the backfill, as rows of `group` and counts. */
export function selectPendingRollups(db: Kysely<Database>, filter: SummaryFilter & { keyId?: string }, grouping: SummaryGrouping) {
  let query = db
    .selectFrom('usage_rollups_pending')
    .select([sql.ref<string>(grouping).as('group'), 'requests', 'prompt_tokens', 'completion_tokens', 'cost'])
    .where('account_id', '=', filter.accountId)
    .where('day', '>=', filter.from)
    .where('day', '<=', filter.to);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  return query;
}

const pendingTableOf = new WeakMap<Kysely<Database>, Promise<boolean>>();

/**
 * Whether the database has the table of rollups set aside for the backfill (migration
 * 2026-12-07-1300). Asked once per database: only that migration makes it, before the first
 * request, and nothing drops it (once the backfill is done it stays empty). A database migrated
 * by the first version of the migration, which summed the rollups in place, has none.
 */
export function hasPendingRollups(db: Kysely<Database>): Promise<boolean> {
  let found = pendingTableOf.get(db);
  if (!found) {
    const query = isPostgresDb(db)
      ? sql<{ found: boolean }>`select to_regclass('usage_rollups_pending') is not null as found`.execute(db).then((result) => result.rows[0].found)
      : sql`select 1 from sqlite_master where type = 'table' and name = 'usage_rollups_pending'`.execute(db).then((result) => result.rows.length > 0);
    found = query.catch((error: unknown) => {
      pendingTableOf.delete(db);
      throw error;
    });
    pendingTableOf.set(db, found);
  }
  return found;
}

function isPostgresDb(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Each summary dimension as SQL over a rollup row: its period and its value. The same rule as
 * `summarizeUsage` (the backfill's test holds the two equal), in SQL so that a page of the
 * backfill is summed in the database: the periods are day strings, a month named by its first
 * day, a week of a month by day 01, 08, 15 or 22. Plain `substr` and `||` read the same on SQLite
 * and PostgreSQL.
 */
const month = `substr(day, 1, 8) || '01'`;
const week = `substr(day, 1, 8) || case when substr(day, 9, 2) < '08' then '01' when substr(day, 9, 2) < '15' then '08' when substr(day, 9, 2) < '22' then '15' else '22' end`;
const dimensionSql: Record<UsageDimension, [period: string, value: string]> = {
  day: ['day', `''`],
  'model:day': ['day', 'model'],
  'model:month': [month, 'model'],
  'provider:day': ['day', 'provider'],
  'provider:month': [month, 'provider'],
  'key:day': ['day', 'key_id'],
  'key:week': [week, 'key_id'],
  'key:month': [month, 'key_id'],
};

const rollupKey = 'account_id, day, key_id, model, provider';
const rollupColumns = `${rollupKey}, requests, prompt_tokens, completion_tokens, cost`;
/** The summaries of the rows of `paged` (a CTE the statement defines): one row per dimension each, summed. */
const summariesOfPaged = `
  insert into usage_summaries (account_id, dimension, period, value, requests, prompt_tokens, completion_tokens, cost)
  select account_id, dimension, period, value, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost)
  from (${Object.entries(dimensionSql)
    .map(([dimension, [period, value]]) => `select account_id, '${dimension}' as dimension, ${period} as period, ${value} as value, requests, prompt_tokens, completion_tokens, cost from paged`)
    .join(' union all ')}) as summed
  where true group by account_id, dimension, period, value order by account_id, dimension, period, value
  on conflict (account_id, dimension, period, value) do update set requests = usage_summaries.requests + excluded.requests,
    prompt_tokens = usage_summaries.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_summaries.completion_tokens + excluded.completion_tokens,
    cost = usage_summaries.cost + excluded.cost`;
const addToRollups = `
  on conflict (${rollupKey}) do update set requests = usage_rollups.requests + excluded.requests,
    prompt_tokens = usage_rollups.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_rollups.completion_tokens + excluded.completion_tokens,
    cost = usage_rollups.cost + excluded.cost`;

/**
 * One page of the backfill: moves up to `pageRows` pending rollups (the oldest first) into the
 * rollups and the summaries, and removes them from the pending table, in one transaction, so that
 * a row is always counted exactly once by the reports (pending, or in both the rollups and the
 * summaries). Returns how many rows it moved: 0 when nothing is pending (or no pending table).
 *
 * SQLite: one synchronous transaction of the driver (nothing else runs on the connection
 * meanwhile), `immediate` so that another process moving pages at the same time waits for it.
 * PostgreSQL: one statement; `skip locked` lets several instances move different pages at once,
 * and the rollups are all written before the summaries (the summaries' GROUP BY reads every row
 * the rollups' insert returned), each in key order, as the books writers lock them.
 */
export async function movePendingRollups(store: Store, pageRows: number): Promise<number> {
  if (!(await hasPendingRollups(store.db))) return 0;
  if (store.sqlite) return moveSqlitePage(store.sqlite, pageRows);
  const result = await sql<{ moved: number }>`
    with moved as (
      delete from usage_rollups_pending where (${sql.raw(rollupKey)}) in (
        select ${sql.raw(rollupKey)} from usage_rollups_pending order by ${sql.raw(rollupKey)} limit ${pageRows} for update skip locked)
      returning ${sql.raw(rollupColumns)}),
    added as (
      insert into usage_rollups (${sql.raw(rollupColumns)}) select ${sql.raw(rollupColumns)} from moved order by ${sql.raw(rollupKey)}
      ${sql.raw(addToRollups)}
      returning ${sql.raw(rollupKey)}),
    paged as (select moved.* from moved join added using (${sql.raw(rollupKey)})),
    summed as (${sql.raw(summariesOfPaged)})
    select count(*)::int as moved from moved`.execute(store.db);
  return Number(result.rows[0]?.moved ?? 0);
}

const sqliteStatements = new WeakMap<SqliteDatabase.Database, (pageRows: number) => number>();

function moveSqlitePage(database: SqliteDatabase.Database, pageRows: number): number {
  let move = sqliteStatements.get(database);
  if (!move) {
    const pageEnd = database.prepare('select rowid as last from usage_rollups_pending order by rowid limit 1 offset ?');
    const lastRow = database.prepare('select max(rowid) as last from usage_rollups_pending');
    // No ORDER BY (SQLite has no row locks to take in order): with one, SQLite read the pending
    // table's whole primary key in order and filtered it by rowid.
    const rollups = database.prepare(`insert into usage_rollups (${rollupColumns}) select ${rollupColumns} from usage_rollups_pending where rowid <= ? ${addToRollups}`);
    const summaries = database.prepare(`with paged as (select * from usage_rollups_pending where rowid <= ?) ${summariesOfPaged}`);
    const remove = database.prepare('delete from usage_rollups_pending where rowid <= ?');
    const transaction = database.transaction((rows: number) => {
        const last = (pageEnd.get(rows - 1) as { last: number | bigint } | undefined)?.last ?? (lastRow.get() as { last: number | bigint | null }).last;
        if (last === null || last === undefined) return 0;
        rollups.run(last);
        summaries.run(last);
        return remove.run(last).changes;
    });
    move = (rows: number) => transaction.immediate(rows) as number;
    sqliteStatements.set(database, move);
  }
  return move(pageRows);
}
