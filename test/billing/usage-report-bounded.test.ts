import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageSummariesBackfill } from '../../src/billing/backfill-usage-summaries.js';
import { addUsageRollups, type UsageRollupDelta } from '../../src/billing/db/usage-rollups.js';
import { selectUsageSummaries, sumUsageSummaries, type SummaryGrouping } from '../../src/billing/db/usage-summaries.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * The account's report reads the summaries, not the detailed rollups, and how many rows it reads
 * grows with the answer (keys, models, providers) and the range's periods, not with keys ×
 * models × days: the plan (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN) searches the
 * summaries' primary key, and the rows its ranges hold are counted. The backfill of the migration
 * rebuilds, a bounded page at a time, the summaries the writers keep.
 */
const keys = 24;
const models = 6;
const days = 120;
const accountId = 'acc_big';
const firstDay = Date.UTC(2026, 0, 1);
const dayOf = (offset: number) => new Date(firstDay + offset * 86_400_000).toISOString().slice(0, 10);

function seedDeltas(account: string): UsageRollupDelta[] {
  const deltas: UsageRollupDelta[] = [];
  for (let day = 0; day < days; day += 1) {
    for (let key = 0; key < keys; key += 1) {
      for (let model = 0; model < models; model += 1) {
        deltas.push({
          accountId: account, day: dayOf(day), keyId: `key_${String(key).padStart(3, '0')}`, model: `model-${model}`, provider: `provider-${model % 3}`,
          requests: 1 + ((day + key) % 4), promptTokens: BigInt(100 * (1 + model)), completionTokens: BigInt(10 * (1 + key)), cost: BigInt(1_000 * (1 + ((key * 7 + model) % 11))),
        });
      }
    }
  }
  return deltas;
}

for (const database of testDatabases()) {
  describe(`the usage report's read is bounded (${database.name})`, () => {
    let test: TestStore;
    const filter = { accountId, from: dayOf(0), to: dayOf(days - 1) };

    beforeAll(async () => {
      test = await openTestStore(database);
      // Sorted as the writers send them; a second account beside it, so that the reads must filter.
      const deltas = [...seedDeltas(accountId), ...seedDeltas('acc_other')].sort((left, right) => (left.accountId < right.accountId ? -1 : left.accountId > right.accountId ? 1 : 0));
      await test.store.db.transaction().execute((trx) => addUsageRollups(trx, deltas));
      if (database.name === 'sqlite') await sql`analyze`.execute(test.store.db);
      else await sql`analyze usage_summaries`.execute(test.store.db);
    }, 300_000);
    afterAll(() => test?.close());

    /** Rows the grouping's query reads: the count its ranges hold, whatever it groups them into. */
    async function rowsRead(grouping: SummaryGrouping): Promise<number> {
      const counts = await selectUsageSummaries(test.store.db, filter, grouping).clearSelect().select(sql<string | bigint>`count(*)`.as('rows')).execute();
      return counts.reduce((total, row) => total + Number(row.rows), 0);
    }

    it('plans a search of the summaries by primary key, never a scan, and never the detailed rollups', async () => {
      // Four whole months (one range), and ragged edges (days, weeks and months: several ranges).
      for (const [grouping, range] of (['day', 'model', 'provider', 'key_id'] as const).flatMap((grouping) => [[grouping, filter], [grouping, { accountId, from: '2026-01-05', to: '2026-04-24' }]] as const)) {
        const compiled = selectUsageSummaries(test.store.db, range, grouping).compile();
        if (database.name === 'sqlite') {
          const plan = test.store.sqlite!.prepare(`explain query plan ${compiled.sql}`).all(...compiled.parameters) as Array<{ detail: string }>;
          const steps = plan.map((step) => step.detail);
          expect(steps.some((step) => /^SEARCH usage_summaries USING PRIMARY KEY \(account_id=\? AND dimension=\? AND period>\? AND period<\?\)$/.test(step))).toBe(true);
          // (The scan of `ranges` is of the union of the ranges, not of a table.)
          expect(steps.filter((step) => /^SCAN usage_|usage_rollups/.test(step))).toEqual([]);
          // Not the multi-index OR, which gathers every range's keys and looks each row up again.
          expect(steps.filter((step) => /MULTI-INDEX OR/.test(step))).toEqual([]);
        } else {
          const plan = JSON.stringify((await test.store.pool!.query({ text: `explain (format json) ${compiled.sql}`, values: [...compiled.parameters] })).rows);
          expect(plan).toContain('usage_summaries_pk');
          expect(plan).not.toContain('Seq Scan');
          expect(plan).not.toContain('usage_rollups');
        }
      }
    });

    it('reads about (months + edge weeks and days) × groups: here 4 months of 24 keys, 6 models, 3 providers', async () => {
      const detailRows = days * keys * models;
      // 1 Jan – 30 Apr 2026: four whole months.
      expect(await rowsRead('key_id')).toBe(4 * keys);
      expect(await rowsRead('model')).toBe(4 * models);
      expect(await rowsRead('provider')).toBe(4 * 3);
      expect(await rowsRead('day')).toBe(days);
      // A range with ragged edges: 5 Jan – 24 Apr is days 5–7, weeks 8–14 … 22–31, Feb, Mar, weeks 1–21, days 22–24.
      const ragged = { accountId, from: '2026-01-05', to: '2026-04-24' };
      const keyRows = await selectUsageSummaries(test.store.db, ragged, 'key_id').clearSelect().select(sql<string | bigint>`count(*)`.as('rows')).execute();
      expect(keyRows.reduce((total, row) => total + Number(row.rows), 0)).toBe((3 + 3 + 2 + 3 + 3) * keys);
      expect(detailRows / (4 * keys)).toBeGreaterThan(100);
    });

    it('answers what the detailed rollups answer', async () => {
      const byKey = await sumUsageSummaries(test.store.db, { accountId, from: '2026-01-05', to: '2026-04-24' }, 'key_id');
      expect(byKey.length).toBe(keys);
      const detail = await sql<{ cost: string | bigint }>`select sum(cost) as cost from usage_rollups where account_id = ${accountId} and day between '2026-01-05' and '2026-04-24'`.execute(test.store.db);
      expect(byKey.reduce((total, sum) => total + sum.cost, 0n)).toBe(BigInt(detail.rows[0].cost));
    });

    it('the backfill rebuilds the summaries the writers kept, a bounded page per transaction', async () => {
      const snapshot = () =>
        test.store.db.selectFrom('usage_summaries').selectAll().orderBy('account_id').orderBy('dimension').orderBy('period').orderBy('value').execute();
      const kept = await snapshot();
      // The state an upgrade leaves: the rollups set aside, no summaries of them.
      await sql`insert into usage_rollups_pending select * from usage_rollups`.execute(test.store.db);
      await test.store.db.deleteFrom('usage_rollups').execute();
      await test.store.db.deleteFrom('usage_summaries').execute();
      const pages: number[] = [];
      // Pages of 997 rows: not a divisor of the rollups' count, so the last page is short.
      await new UsageSummariesBackfill(test.store, { pageRows: 997, onPage: (rows) => pages.push(rows) }).start();
      expect(await snapshot()).toEqual(kept);
      expect(pages.reduce((total, rows) => total + rows, 0)).toBe(2 * days * keys * models);
      expect(Math.max(...pages)).toBe(997);
    });
  });
}
