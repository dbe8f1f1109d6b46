import { nanoToUsd } from '../../core/money.js';
import type { UsageSum } from '../../billing/db/usage-rollups.js';

type GroupField = 'day' | 'model' | 'provider' | 'key_id';

/** The most keys `by_key` lists one by one (docs/usage-reports.md). */
export const maxKeyRows = 100;

/** One statistics row: the grouping field (if any), then cost in USD and the counts. */
export function encodeUsageRow(sum: Omit<UsageSum, 'group'>, field?: { name: GroupField; value: string }): Record<string, unknown> {
  return {
    ...(field ? { [field.name]: field.value } : {}),
    cost: nanoToUsd(sum.cost),
    requests: sum.requests,
    prompt_tokens: Number(sum.promptTokens),
    completion_tokens: Number(sum.completionTokens),
  };
}

/** Days in order; other groupings by cost, largest first, then by name for a stable order. */
export function encodeUsageRows(sums: UsageSum[], name: GroupField): Record<string, unknown>[] {
  return orderSums(sums, name).map((sum) => encodeUsageRow(sum, { name, value: sum.group }));
}

/**
 * `by_key`, largest cost first: at most `maxKeyRows` keys, and when there are more, one last row
 * `{key_id: null, other_keys: N, …}` summing the rest, so that an account with thousands of keys
 * still gets a small answer whose rows add up to the total.
 */
export function encodeKeyRows(sums: UsageSum[]): Record<string, unknown>[] {
  const ordered = orderSums(sums, 'key_id');
  const listed = ordered.slice(0, maxKeyRows).map((sum) => encodeUsageRow(sum, { name: 'key_id', value: sum.group }));
  if (ordered.length <= maxKeyRows) return listed;
  const rest = ordered.slice(maxKeyRows);
  return [...listed, { key_id: null, other_keys: rest.length, ...encodeUsageRow(totalOf(rest)) }];
}

function orderSums(sums: UsageSum[], name: GroupField): UsageSum[] {
  return [...sums].sort((left, right) => {
    if (name !== 'day' && left.cost !== right.cost) return left.cost > right.cost ? -1 : 1;
    return left.group < right.group ? -1 : left.group > right.group ? 1 : 0;
  });
}

export function totalOf(sums: UsageSum[]): Omit<UsageSum, 'group'> {
  const total = { requests: 0, promptTokens: 0n, completionTokens: 0n, cost: 0n };
  for (const sum of sums) {
    total.requests += sum.requests;
    total.promptTokens += sum.promptTokens;
    total.completionTokens += sum.completionTokens;
    total.cost += sum.cost;
  }
  return total;
}
