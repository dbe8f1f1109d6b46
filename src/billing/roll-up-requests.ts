import { mapPacked } from '../core/map-packed.js';
import type { RequestRecord } from './request-record.js';
import type { UsageRollupDelta } from './db/usage-rollups.js';

/**
 * Folds a batch of request log rows into one delta per (account, UTC day, key, model, provider),
 * sorted by that key. Requests that never reached a provider (refused) are in the log but not in
 * the usage statistics: they used nothing and cost nothing.
 */
export function rollUpRequests(records: readonly RequestRecord[]): UsageRollupDelta[] {
  return mapPacked(sortedDeltas(records), ([, delta]) => delta);
}

/** `rollUpRequests`, and for each record the index of its delta (null: outside the statistics). */
export function rollUpRequestsByRow(records: readonly RequestRecord[]): { rollups: UsageRollupDelta[]; rollupOf: Array<number | null> } {
  const sorted = sortedDeltas(records);
  const index = new Map(sorted.map(([key], position) => [key, position]));
  return {
    rollups: mapPacked(sorted, ([, delta]) => delta),
    rollupOf: mapPacked(records, (record) => (record.provider === null ? null : index.get(rollupKey(record))!)),
  };
}

function rollupKey(record: RequestRecord): string {
  return `${record.accountId}\u0000${record.createdAt.slice(0, 10)}\u0000${record.keyId ?? ''}\u0000${record.model}\u0000${record.provider}`;
}

function sortedDeltas(records: readonly RequestRecord[]): Array<[string, UsageRollupDelta]> {
  const deltas = new Map<string, UsageRollupDelta>();
  for (const record of records) {
    if (record.provider === null) continue;
    const key = rollupKey(record);
    let delta = deltas.get(key);
    if (!delta) {
      delta = { accountId: record.accountId, day: record.createdAt.slice(0, 10), keyId: record.keyId ?? '', model: record.model, provider: record.provider, requests: 0, promptTokens: 0n, completionTokens: 0n, cost: 0n };
      deltas.set(key, delta);
    }
    delta.requests += 1;
    delta.promptTokens += BigInt(record.promptTokens);
    delta.completionTokens += BigInt(record.completionTokens);
    delta.cost += record.cost;
  }
  return [...deltas.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
}
