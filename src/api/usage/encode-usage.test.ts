import { describe, expect, it } from 'vitest';
import type { UsageSum } from '../../billing/db/usage-rollups.js';
import { encodeKeyRows, encodeUsageRow, maxKeyRows, totalOf } from './encode-usage.js';

const sum = (group: string, cost: bigint): UsageSum => ({ group, requests: 2, promptTokens: 30n, completionTokens: 4n, cost });

describe('by_key', () => {
  it('lists every key, largest cost first, when they are no more than the cap', () => {
    const rows = encodeKeyRows([sum('key_a', 5n), sum('key_b', 9_000_000_000n), sum('key_c', 5n)]);
    expect(rows.map((row) => row.key_id)).toEqual(['key_b', 'key_a', 'key_c']);
  });

  it('lists the largest keys up to the cap and sums the rest in one last row, the rows adding up to the total', () => {
    const sums = Array.from({ length: maxKeyRows + 57 }, (_, index) => sum(`key_${String(index).padStart(4, '0')}`, BigInt((index * 7919) % 1000) * 1_000_000n));
    const rows = encodeKeyRows(sums);
    expect(rows).toHaveLength(maxKeyRows + 1);
    const costs = sums.map((entry) => entry.cost).sort((left, right) => (left > right ? -1 : left < right ? 1 : 0));
    expect(rows.slice(0, maxKeyRows).map((row) => row.cost)).toEqual(costs.slice(0, maxKeyRows).map((cost) => Number(cost) / 1e9));
    const rest = rows[maxKeyRows];
    expect(rest).toMatchObject({ key_id: null, other_keys: 57 });
    const listed = new Set(rows.slice(0, maxKeyRows).map((row) => row.key_id));
    expect(rest).toEqual({ key_id: null, other_keys: 57, ...encodeUsageRow(totalOf(sums.filter((entry) => !listed.has(entry.group)))) });
    expect(Math.max(...sums.filter((entry) => !listed.has(entry.group)).map((entry) => Number(entry.cost)))).toBeLessThanOrEqual(Math.min(...sums.filter((entry) => listed.has(entry.group)).map((entry) => Number(entry.cost))));
    expect(rows.reduce((total, row) => total + (row.requests as number), 0)).toBe(totalOf(sums).requests);
  });
});
