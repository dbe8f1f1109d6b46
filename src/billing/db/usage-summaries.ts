import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { coverDays, type Grain, type UsageSummaryDelta } from './summarize-usage.js';
import { summedCounts, toUsageSum, type UsageSum } from './usage-rollups.js';

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
  const rows = await selectUsageSummaries(db, filter, grouping).execute();
  return rows.map(toUsageSum);
}

export interface SummaryFilter {
  accountId: string;
  from: string;
  to: string;
}

/** The query of `sumUsageSummaries`, unexecuted (its plan is held by a test). */
export function selectUsageSummaries(db: Kysely<Database>, filter: SummaryFilter, grouping: SummaryGrouping) {
  const byGrain: Partial<Record<Grain, string>> = dimensions[grouping];
  const runs = coverDays(filter.from, filter.to, new Set(Object.keys(byGrain) as Grain[]));
  const column = grouping === 'day' ? 'period' : 'value';
  return db
    .selectFrom('usage_summaries')
    .select([sql.ref<string>(column).as('group'), ...summedCounts()])
    .where('account_id', '=', filter.accountId)
    .where((eb) => eb.or(runs.map((run) => eb.and([eb('dimension', '=', byGrain[run.grain]!), eb('period', '>=', run.first), eb('period', '<=', run.last)]))))
    .groupBy(column);
}
