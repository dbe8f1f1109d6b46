import { sql } from 'kysely';
import { toBigInt, toNumber } from '../../store/convert.js';

/**
 * The shapes both usage tables share: what a batch adds to a detailed rollup row, and a summed
 * group as the reports read it from either table (rollups or summaries).
 */

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
