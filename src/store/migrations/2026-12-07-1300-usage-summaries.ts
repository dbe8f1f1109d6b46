import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { addUsageSummaries } from '../repositories/usage-summaries.js';
import type { UsageRollupDelta } from '../repositories/usage-rollups.js';
import { summarizeUsage } from '../summarize-usage.js';
import { toBigInt, toNumber } from '../convert.js';
import { isPostgres } from './is-postgres.js';

/** Rollup rows read per statement of the backfill. */
export const backfillPageRows = 5_000;

/**
 * `usage_summaries` (`store/summarize-usage.ts`): what the usage report reads instead of summing
 * every detailed rollup of its range, filled from the rollups already there. On SQLite the table
 * is clustered on its key (`without rowid`): a report's ranges are read from the key's B-tree
 * without a lookup per row.
 *
 * The backfill walks the rollups in primary-key order, a page of `backfillPageRows` rows per
 * statement, each page's sums added in statements of a few hundred rows: no statement reads or
 * writes more than a page, whatever the table's size. On PostgreSQL the rollups are only read, so
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

/** Adds every rollup row to the summaries, a bounded page per statement. */
export async function backfillUsageSummaries(db: Kysely<Database>, pageRows = backfillPageRows): Promise<void> {
  let after: UsageRollupDelta | undefined;
  for (;;) {
    let page = db.selectFrom('usage_rollups').selectAll();
    if (after) {
      const { accountId, day, keyId, model, provider } = after;
      page = page.where((eb) => eb(eb.refTuple('account_id', 'day', 'key_id', 'model', 'provider'), '>', eb.tuple(accountId, day, keyId, model, provider)));
    }
    const rows = await page.orderBy('account_id').orderBy('day').orderBy('key_id').orderBy('model').orderBy('provider').limit(pageRows).execute();
    if (rows.length === 0) return;
    const deltas = rows.map(
      (row): UsageRollupDelta => ({
        accountId: row.account_id,
        day: row.day,
        keyId: row.key_id,
        model: row.model,
        provider: row.provider,
        requests: toNumber(row.requests),
        promptTokens: toBigInt(row.prompt_tokens),
        completionTokens: toBigInt(row.completion_tokens),
        cost: toBigInt(row.cost),
      }),
    );
    await addUsageSummaries(db, summarizeUsage(deltas));
    after = deltas[deltas.length - 1];
  }
}
