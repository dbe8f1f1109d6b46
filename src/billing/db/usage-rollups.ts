import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/database.js';
import { toBigInt, toNumber } from '../../store/convert.js';
import { summarizeUsage } from './summarize-usage.js';
import { addUsageSummaries } from './usage-summaries.js';

/** What one batch adds to one (account, day, key, model, provider) row. */
export interface UsageRollupDelta {
  accountId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** '' when the request had no key. */
  keyId: string;
  model: string;
  provider: string;
  requests: number;
  promptTokens: bigint;
  completionTokens: bigint;
  cost: bigint;
}

export type UsageGrouping = 'day' | 'model' | 'provider' | 'key_id';

export interface UsageSum {
  group: string;
  requests: number;
  promptTokens: bigint;
  completionTokens: bigint;
  cost: bigint;
}

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

/** Sums of the rollup rows of `from`..`to` (inclusive days), grouped by one column. */
export async function sumUsage(
  db: Kysely<Database>,
  filter: { accountId: string; keyId?: string; from: string; to: string },
  grouping: UsageGrouping,
): Promise<UsageSum[]> {
  let query = db
    .selectFrom('usage_rollups')
    .select([sql.ref<string>(grouping).as('group'), ...summedCounts()])
    .where('account_id', '=', filter.accountId)
    .where('day', '>=', filter.from)
    .where('day', '<=', filter.to);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  const rows = await query.groupBy(grouping).execute();
  return rows.map(toUsageSum);
}

/** The sums a usage query selects. PostgreSQL sums bigint into numeric (a string through pg); SQLite into an integer. */
export function summedCounts() {
  return [
    sql<string | bigint>`sum(requests)`.as('requests'),
    sql<string | bigint>`sum(prompt_tokens)`.as('prompt_tokens'),
    sql<string | bigint>`sum(completion_tokens)`.as('completion_tokens'),
    sql<string | bigint>`sum(cost)`.as('cost'),
  ];
}

type SummedRow = { group: string; requests: string | bigint; prompt_tokens: string | bigint; completion_tokens: string | bigint; cost: string | bigint };

export function toUsageSum(row: SummedRow): UsageSum {
  return {
    group: row.group,
    requests: toNumber(toBigInt(row.requests)),
    promptTokens: toBigInt(row.prompt_tokens),
    completionTokens: toBigInt(row.completion_tokens),
    cost: toBigInt(row.cost),
  };
}
