import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { summarizeUsage } from './summarize-usage.js';
import { addUsageSummaries, hasPendingRollups, selectPendingRollups } from './usage-summaries.js';
import { summedCounts, toUsageSum, type UsageGrouping, type UsageRollupDelta, type UsageSum } from './usage-sums.js';

export type { UsageGrouping, UsageRollupDelta, UsageSum } from './usage-sums.js';

const rowsPerStatement = 500;

/**
 * Adds the deltas to their rollup rows, creating missing ones. `ON CONFLICT … DO UPDATE` with
 * `excluded` reads the same on SQLite and PostgreSQL; each delta must name a distinct row
 * (PostgreSQL refuses to update one row twice in a statement), and callers pass them sorted so
 * concurrent writers lock rows in the same order. Adds them to the report's summaries too
 * (`summarize-usage.ts`), as the books writers do.
 */
export async function addUsageRollups(db: Kysely<Database>, deltas: readonly UsageRollupDelta[]): Promise<void> {
  for (let start = 0; start < deltas.length; start += rowsPerStatement) {
    await db
      .insertInto('usage_rollups')
      .values(
        deltas.slice(start, start + rowsPerStatement).map((delta) => ({
          account_id: delta.accountId,
          day: delta.day,
          key_id: delta.keyId,
          model: delta.model,
          provider: delta.provider,
          requests: delta.requests,
          prompt_tokens: delta.promptTokens,
          completion_tokens: delta.completionTokens,
          cost: delta.cost,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['account_id', 'day', 'key_id', 'model', 'provider']).doUpdateSet((eb) => ({
          requests: eb('usage_rollups.requests', '+', eb.ref('excluded.requests')),
          prompt_tokens: eb('usage_rollups.prompt_tokens', '+', eb.ref('excluded.prompt_tokens')),
          completion_tokens: eb('usage_rollups.completion_tokens', '+', eb.ref('excluded.completion_tokens')),
          cost: eb('usage_rollups.cost', '+', eb.ref('excluded.cost')),
        })),
      )
      .execute();
  }
  await addUsageSummaries(db, summarizeUsage(deltas));
}

/**
 * Sums of the rollup rows of `from`..`to` (inclusive days), grouped by one column. Rows the
 * summaries' backfill has not moved yet (`usage_rollups_pending`) count too.
 */
export async function sumUsage(
  db: Kysely<Database>,
  filter: { accountId: string; keyId?: string; from: string; to: string },
  grouping: UsageGrouping,
): Promise<UsageSum[]> {
  let query = db
    .selectFrom('usage_rollups')
    .select([sql.ref<string>(grouping).as('group'), 'requests', 'prompt_tokens', 'completion_tokens', 'cost'])
    .where('account_id', '=', filter.accountId)
    .where('day', '>=', filter.from)
    .where('day', '<=', filter.to);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  const rows = (await hasPendingRollups(db)) ? query.unionAll(selectPendingRollups(db, filter, grouping)) : query;
  const summed = await db.selectFrom(rows.as('rows')).select([sql.ref<string>('group').as('group'), ...summedCounts()]).groupBy('group').execute();
  return summed.map(toUsageSum);
}
