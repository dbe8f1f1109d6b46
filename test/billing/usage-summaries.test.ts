import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBooks } from '../../src/billing/write-books.js';
import type { BookItem } from '../../src/billing/plan-books.js';
import type { RequestRecord } from '../../src/billing/request-record.js';
import { sumUsage, type UsageSum } from '../../src/billing/db/usage-rollups.js';
import { sumUsageSummaries, type SummaryGrouping } from '../../src/billing/db/usage-summaries.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * The report's summaries (`billing/db/summarize-usage.ts`) say what the detailed rollups say: random
 * traffic across UTC day, month and year boundaries, written by the real books writers in random
 * batches — requests settled after midnight in a batch of the next day (the rollup counts a
 * request on the day it started), refused requests, rows sent again (a batch retried after a lost
 * commit answer, or twice in one batch: PostgreSQL's general path instead of its one-statement
 * covered path) — then, for random ranges, each grouping summed from the summaries equals the
 * same grouping summed from the detailed rollups and from the requests themselves.
 */
const base = Date.UTC(2025, 11, 20); // 20 Dec 2025: the window crosses a year, Jan 31 and Feb 28.
const dayMs = 86_400_000;
const windowDays = 75;
const day = (offset: number) => new Date(base + offset * dayMs).toISOString().slice(0, 10);

interface Request {
  at: number;
  settleDelay: number;
  key: number;
  model: number;
  provider: number;
  refused: boolean;
  promptTokens: number;
  completionTokens: number;
  cost: bigint;
}

const request: fc.Arbitrary<Request> = fc.record({
  // Near midnight more often than not: that is where late settlements cross a day.
  at: fc.oneof(
    fc.integer({ min: 0, max: windowDays * dayMs - 1 }),
    fc.tuple(fc.integer({ min: 1, max: windowDays - 1 }), fc.integer({ min: -120_000, max: 120_000 })).map(([days, ms]) => days * dayMs + ms),
  ),
  settleDelay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300_000 }), fc.integer({ min: 0, max: 2 * dayMs })),
  key: fc.integer({ min: 0, max: 4 }),
  model: fc.integer({ min: 0, max: 3 }),
  provider: fc.integer({ min: 0, max: 2 }),
  refused: fc.boolean().map((value) => value && Math.random() < 0.2),
  promptTokens: fc.integer({ min: 0, max: 100_000 }),
  completionTokens: fc.integer({ min: 0, max: 100_000 }),
  cost: fc.bigInt({ min: 0n, max: 5_000_000_000n }),
});

const traffic = fc.record({
  requests: fc.array(request, { minLength: 1, maxLength: 80 }),
  batchSizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }),
  resent: fc.array(fc.nat(), { maxLength: 6 }),
  ranges: fc.array(fc.tuple(fc.integer({ min: -5, max: windowDays + 5 }), fc.integer({ min: -5, max: windowDays + 5 })), { minLength: 1, maxLength: 4 }),
});

const groupings: SummaryGrouping[] = ['day', 'model', 'provider', 'key_id'];

function recordOf(accountId: string, index: number, input: Request): RequestRecord {
  return {
    id: `req_${accountId}_${index}`, accountId, keyId: input.key === 0 ? null : `key_${input.key}`, model: `model-${input.model}`,
    provider: input.refused ? null : `provider-${input.provider}`, endpoint: '/chat/completions', streamed: false,
    status: input.refused ? 'refused' : 'completed', errorCode: null, latencyMs: 5, promptTokens: input.refused ? 0 : input.promptTokens,
    completionTokens: input.refused ? 0 : input.completionTokens, cachedTokens: 0, reasoningTokens: 0, cost: input.refused ? 0n : input.cost,
    estimated: false, createdAt: new Date(base + input.at).toISOString(),
  };
}

/** What the requests say, straight from them: the oracle beside the detailed rollups. */
function expectedSums(records: readonly RequestRecord[], from: string, to: string, grouping: SummaryGrouping): UsageSum[] {
  const sums = new Map<string, UsageSum>();
  for (const record of records) {
    const recordDay = record.createdAt.slice(0, 10);
    if (record.provider === null || recordDay < from || recordDay > to) continue;
    const group = grouping === 'day' ? recordDay : grouping === 'model' ? record.model : grouping === 'provider' ? record.provider : (record.keyId ?? '');
    const sum = sums.get(group) ?? { group, requests: 0, promptTokens: 0n, completionTokens: 0n, cost: 0n };
    sum.requests += 1;
    sum.promptTokens += BigInt(record.promptTokens);
    sum.completionTokens += BigInt(record.completionTokens);
    sum.cost += record.cost;
    sums.set(group, sum);
  }
  return sorted([...sums.values()]);
}

const sorted = (sums: UsageSum[]) => [...sums].sort((left, right) => (left.group < right.group ? -1 : left.group > right.group ? 1 : 0));

for (const database of testDatabases()) {
  describe(`usage summaries equal the detailed sums (${database.name})`, () => {
    let test: TestStore;
    let run = 0;
    let ledger = 0;

    beforeAll(async () => {
      test = await openTestStore(database);
    });
    afterAll(() => test?.close());

    it('for random traffic across days, months and a year, late settlements and resent rows, over random ranges', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ requests, batchSizes, resent, ranges }) => {
          const accountId = `acc_${(run += 1)}`;
          const records = requests.map((input, index) => recordOf(accountId, index, input));
          // Written in the order they settle; a batch is stamped with its last settlement's time.
          const order = requests.map((input, index) => ({ index, settledAt: input.at + input.settleDelay })).sort((left, right) => left.settledAt - right.settledAt);
          let position = 0;
          for (let batch = 0; position < order.length; batch += 1) {
            const size = batchSizes[batch % batchSizes.length];
            const members = order.slice(position, position + size);
            position += members.length;
            const items: BookItem[] = members.map(({ index }) => ({ row: records[index] }));
            // A row sent again: already written by an earlier batch, or twice in this one.
            if (resent.length > 0) items.push({ row: records[order[resent[batch % resent.length] % position].index] });
            const stamp = new Date(base + members[members.length - 1].settledAt).toISOString();
            await writeBooks(test.store, { items, createdAt: stamp, ledgerId: () => `led_${(ledger += 1)}` });
          }
          for (const [left, right] of ranges) {
            const [from, to] = [day(Math.min(left, right)), day(Math.max(left, right))];
            for (const grouping of groupings) {
              const filter = { accountId, from, to };
              const fromSummaries = sorted(await sumUsageSummaries(test.store.db, filter, grouping));
              expect(fromSummaries).toEqual(sorted(await sumUsage(test.store.db, filter, grouping)));
              expect(fromSummaries).toEqual(expectedSums(records, from, to, grouping));
            }
          }
        }),
        { numRuns: database.name === 'sqlite' ? 60 : 25 },
      );
    }, 240_000);
  });
}
