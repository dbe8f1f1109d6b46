import { sql, type Kysely } from 'kysely';
import type { Database, UsageDimension } from '../database.js';
import { isPostgres } from './is-postgres.js';

/** Rollup rows read per statement of the backfill. */
export const backfillPageRows = 5_000;

/**
 * `usage_summaries` (`store/summarize-usage.ts`): what the usage report reads instead of summing
 * every detailed rollup of its range, filled from the rollups already there. On SQLite the table
 * is clustered on its key (`without rowid`): a report's ranges are read from the key's B-tree
 * without a lookup per row.
 *
 * The backfill walks the rollups in primary-key order, a page of `backfillPageRows` rows at a
 * time, each page summed in the database by one statement: no statement reads or writes more
 * than a page (and its sums), whatever the table's size. On PostgreSQL the rollups are only read, so
 * writers are not held; instances of the previous version that write rollups meanwhile (a rolling
 * upgrade) do not add to the summaries (docs/usage-reports.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = await isPostgres(db);
  await db.schema
    .createTable('usage_summaries')
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('dimension', 'text', (column) => column.notNull())
    .addColumn('period', 'text', (column) => column.notNull())
    .addColumn('value', 'text', (column) => column.notNull())
    .addColumn('requests', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_summaries_pk', ['account_id', 'dimension', 'period', 'value'])
    .$call((builder) => (postgres ? builder : builder.modifyEnd(sql`without rowid`)))
    .execute();
  await backfillUsageSummaries(db as Kysely<Database>);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_summaries').ifExists().execute();
}

const rollupKey = ['account_id', 'day', 'key_id', 'model', 'provider'] as const;

/**
 * Each summary dimension as SQL over a rollup row: its period and its value. The same rule as
 * `summarizeUsage` (the test of the backfill holds the two equal), in SQL so that a page of the
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

/**
 * Adds every rollup row to the summaries, a page of `pageRows` rollup rows (in primary-key order)
 * per statement: each statement reads one page and sums it into the summaries. `onPage` hears
 * each page's size.
 */
export async function backfillUsageSummaries(db: Kysely<Database>, pageRows = backfillPageRows, onPage?: (rows: number) => void): Promise<void> {
  const keyTuple = sql.raw(`(${rollupKey.join(', ')})`);
  const page = (row: Record<(typeof rollupKey)[number], string>) => sql.join(rollupKey.map((column) => row[column]));
  const sums = sql.raw(Object.entries(dimensionSql)
    .map(([dimension, [period, value]]) => `select account_id, '${dimension}' as dimension, ${period} as period, ${value} as value, requests, prompt_tokens, completion_tokens, cost from paged`)
    .join(' union all '));
  let after: Record<(typeof rollupKey)[number], string> | undefined;
  for (;;) {
    const from = after ? sql`${keyTuple} > (${page(after)})` : sql`true`;
    // The page's last row: the page is the rows after `after` up to it (all the rest at the end).
    const [last] = await sql<Record<(typeof rollupKey)[number], string>>`
      select ${sql.raw(rollupKey.join(', '))} from usage_rollups where ${from} order by ${sql.raw(rollupKey.join(', '))} limit 1 offset ${pageRows - 1}`.execute(db).then((result) => result.rows);
    const to = last ? sql`${keyTuple} <= (${page(last)})` : sql`true`;
    const written = await sql<{ rows: string | number | bigint }>`
      with paged as (select * from usage_rollups where ${from} and ${to})
      select count(*) as rows from paged`.execute(db);
    const rows = Number(written.rows[0].rows);
    if (rows === 0) return;
    onPage?.(rows);
    await sql`
      insert into usage_summaries (account_id, dimension, period, value, requests, prompt_tokens, completion_tokens, cost)
      select account_id, dimension, period, value, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost)
      from (with paged as (select * from usage_rollups where ${from} and ${to}) ${sums}) as summed
      where true group by account_id, dimension, period, value
      on conflict (account_id, dimension, period, value) do update set requests = usage_summaries.requests + excluded.requests,
        prompt_tokens = usage_summaries.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_summaries.completion_tokens + excluded.completion_tokens,
        cost = usage_summaries.cost + excluded.cost`.execute(db);
    if (!last) return;
    after = last;
  }
}
