import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageSummariesBackfill } from '../../src/billing/backfill-usage-summaries.js';
import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { migrations } from '../../src/store/migrations/index.js';
import { addUsageRollups, sumUsage, type UsageRollupDelta, type UsageSum } from '../../src/billing/db/usage-rollups.js';
import { hasPendingRollups, movePendingRollups, sumUsageSummaries, type SummaryGrouping } from '../../src/billing/db/usage-summaries.js';
import { dropTestSchema, testDatabases, uniqueSchemaName } from '../helpers/test-databases.js';

/**
 * The usage summaries of an upgraded database are filled after start, in the background (issue
 * 54): migration 2026-12-07-1300 only sets the existing rollups aside, the backfill moves them a
 * bounded page per transaction, and every report is exact before, during and after it — also
 * while the writers keep adding to the same rollup rows the backfill has not reached.
 */
const keys = ['', 'key_a', 'key_b', 'key_c'];
const models: Array<[string, string]> = [['m-1', 'p-1'], ['m-2', 'p-1'], ['m-3', 'p-2']];
const dayOf = (offset: number) => new Date(Date.UTC(2026, 0, 27) + offset * 86_400_000).toISOString().slice(0, 10);

/** Rollups of two accounts over 70 days across three months, one row per (day, key, model). */
function traffic(seed: number, days: number[]): UsageRollupDelta[] {
  const deltas: UsageRollupDelta[] = [];
  for (const accountId of ['acc_a', 'acc_b'])
    for (const day of days)
      for (const [k, keyId] of keys.entries())
        for (const [m, [model, provider]] of models.entries()) {
          const n = seed + day * 31 + k * 7 + m;
          if (n % 5 === 0) continue;
          deltas.push({ accountId, day: dayOf(day), keyId, model, provider, requests: 1 + (n % 3), promptTokens: BigInt(100 + (n % 17)), completionTokens: BigInt(10 + (n % 13)), cost: BigInt(1_000 * (1 + (n % 29))) });
        }
  return deltas.sort((left, right) => (`${left.accountId} ${left.day} ${left.keyId} ${left.model}` < `${right.accountId} ${right.day} ${right.keyId} ${right.model}` ? -1 : 1));
}

const ranges = [
  { from: dayOf(0), to: dayOf(69) },
  { from: dayOf(3), to: dayOf(40) },
  { from: dayOf(36), to: dayOf(36) },
];
const groupings: SummaryGrouping[] = ['day', 'model', 'provider', 'key_id'];

/** What every report must say: the sums of all the traffic, computed here, not by the store. */
function expected(deltas: UsageRollupDelta[], filter: { accountId: string; keyId?: string; from: string; to: string }, grouping: SummaryGrouping): UsageSum[] {
  const sums = new Map<string, UsageSum>();
  for (const delta of deltas) {
    if (delta.accountId !== filter.accountId || delta.day < filter.from || delta.day > filter.to) continue;
    if (filter.keyId !== undefined && delta.keyId !== filter.keyId) continue;
    const group = grouping === 'key_id' ? delta.keyId : delta[grouping];
    const sum = sums.get(group) ?? { group, requests: 0, promptTokens: 0n, completionTokens: 0n, cost: 0n };
    sum.requests += delta.requests;
    sum.promptTokens += delta.promptTokens;
    sum.completionTokens += delta.completionTokens;
    sum.cost += delta.cost;
    sums.set(group, sum);
  }
  return sorted([...sums.values()]);
}

const sorted = (sums: UsageSum[]) => [...sums].sort((left, right) => (left.group < right.group ? -1 : left.group > right.group ? 1 : 0));

for (const database of testDatabases()) {
  describe(`the usage summaries' backfill runs after start, in bounded pages (${database.name})`, () => {
    let store: Store | undefined;
    let schema: string | undefined;

    afterEach(async () => {
      await store?.close();
      if (schema) await dropTestSchema(database.url, schema);
      store = undefined;
    });

    async function openStore(): Promise<Store> {
      schema = database.name === 'postgres' ? uniqueSchemaName() : undefined;
      store = await createStore(database.url, { schema, poolSize: 4 });
      return store;
    }

    /** A database of the version before the summaries, with usage in it, then upgraded. */
    async function upgradedStore(old: UsageRollupDelta[]): Promise<Store> {
      const opened = await openStore();
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '2026-12-07-1300'));
      const { error } = await new Migrator({ db: opened.db, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true, migrationTableSchema: schema }).migrateToLatest();
      if (error) throw error;
      // The rollups as that version wrote them (no summaries yet).
      await opened.db.insertInto('usage_rollups')
        .values(old.map((delta) => ({ account_id: delta.accountId, day: delta.day, key_id: delta.keyId, model: delta.model, provider: delta.provider, requests: delta.requests, prompt_tokens: delta.promptTokens, completion_tokens: delta.completionTokens, cost: delta.cost })))
        .execute();
      await migrateToLatest(opened);
      return opened;
    }

    async function expectExactReports(all: UsageRollupDelta[]): Promise<void> {
      for (const accountId of ['acc_a', 'acc_b'])
        for (const range of ranges)
          for (const grouping of groupings) {
            const filter = { accountId, ...range };
            expect(sorted(await sumUsageSummaries(store!.db, filter, grouping))).toEqual(expected(all, filter, grouping));
            // An ordinary key's report reads the rollups.
            expect(sorted(await sumUsage(store!.db, { ...filter, keyId: 'key_b' }, grouping))).toEqual(expected(all, { ...filter, keyId: 'key_b' }, grouping));
          }
    }

    const pendingRows = async () => Number((await sql<{ n: string | number | bigint }>`select count(*) as n from usage_rollups_pending`.execute(store!.db)).rows[0].n);

    it('sets the old rollups aside in the migration; reports are exact before, during (writers adding meanwhile) and after; every page is bounded', async () => {
      const days = Array.from({ length: 70 }, (_, day) => day);
      const old = traffic(0, days);
      await upgradedStore(old);
      expect(await pendingRows()).toBe(old.length);
      expect(await hasPendingRollups(store!.db)).toBe(true);
      await expectExactReports(old);

      // Writers keep settling, into rows the backfill has not moved yet (the same account, day,
      // key, model) and new ones: their deltas go to the rollups and the summaries at once.
      const later = traffic(3, [5, 6, 40, 69]);
      await store!.db.transaction().execute((trx) => addUsageRollups(trx, later));
      const all = [...old, ...later];
      await expectExactReports(all);

      // A few pages by hand: exact after each, whatever is moved and whatever still pending.
      for (let page = 0; page < 3; page += 1) {
        expect(await movePendingRollups(store!, 97)).toBe(97);
        await expectExactReports(all);
      }
      const more = traffic(5, [2, 38]);
      await store!.db.transaction().execute((trx) => addUsageRollups(trx, more));
      all.push(...more);

      // The rest in the background, pages of 97 rows, the event loop turning between them.
      const pages: number[] = [];
      // Other work waiting for the event loop (as requests would) gets turns between the pages.
      let turns = 0;
      let ticking = true;
      const tick = () => {
        turns += 1;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const backfill = new UsageSummariesBackfill(store!, { pageRows: 97, onPage: (rows) => pages.push(rows) });
      const outcome = await backfill.start();
      ticking = false;
      expect(backfill.done()).toBe(true);
      expect(outcome.rows).toBe(old.length - 3 * 97);
      expect(Math.max(...pages)).toBe(97);
      expect(pages.length).toBe(Math.ceil((old.length - 3 * 97) / 97));
      expect(turns).toBeGreaterThanOrEqual(pages.length / 2);
      expect(await pendingRows()).toBe(0);
      await expectExactReports(all);

      // The summaries are what the writers would have kept had they written all of it.
      const rebuilt = await openSummariesOf(all);
      const kept = await store!.db.selectFrom('usage_summaries').select(['account_id', 'dimension', 'period', 'value', 'requests', 'prompt_tokens', 'completion_tokens', 'cost']).orderBy('account_id').orderBy('dimension').orderBy('period').orderBy('value').execute();
      expect(kept.map(normalize)).toEqual(rebuilt);

      // A second run (another start of the instance) has nothing to do.
      expect(await new UsageSummariesBackfill(store!).start()).toMatchObject({ rows: 0, pages: 0 });
    }, 120_000);

    /** The summaries of `deltas` written by the writers' own path into a fresh store. */
    async function openSummariesOf(deltas: UsageRollupDelta[]) {
      const fresh = await createStore('sqlite::memory:');
      try {
        await migrateToLatest(fresh);
        const merged = new Map<string, UsageRollupDelta>();
        for (const delta of deltas) {
          const key = `${delta.accountId} ${delta.day} ${delta.keyId} ${delta.model} ${delta.provider}`;
          const row = merged.get(key);
          if (!row) merged.set(key, { ...delta });
          else {
            row.requests += delta.requests;
            row.promptTokens += delta.promptTokens;
            row.completionTokens += delta.completionTokens;
            row.cost += delta.cost;
          }
        }
        const rows = [...merged.entries()].sort(([left], [right]) => (left < right ? -1 : 1)).map(([, row]) => row);
        await fresh.db.transaction().execute((trx) => addUsageRollups(trx, rows));
        const summaries = await fresh.db.selectFrom('usage_summaries').select(['account_id', 'dimension', 'period', 'value', 'requests', 'prompt_tokens', 'completion_tokens', 'cost']).orderBy('account_id').orderBy('dimension').orderBy('period').orderBy('value').execute();
        return summaries.map(normalize);
      } finally {
        await fresh.close();
      }
    }

    it('a new database has nothing to wait for; one migrated by the first version of the migration (no pending table) is done', async () => {
      const opened = await openStore();
      await migrateToLatest(opened);
      expect(await new UsageSummariesBackfill(opened).start()).toMatchObject({ rows: 0, pages: 0 });
      await opened.close();
      if (schema) await dropTestSchema(database.url, schema);

      // The first version summed the rollups in place and left no pending table.
      const first = await openStore();
      await migrateToLatest(first);
      await sql`drop table usage_rollups_pending`.execute(first.db);
      const backfill = new UsageSummariesBackfill(first);
      expect(await backfill.start()).toMatchObject({ rows: 0, pages: 0 });
      expect(backfill.done()).toBe(true);
      const later = traffic(1, [1, 2]);
      await first.db.transaction().execute((trx) => addUsageRollups(trx, later));
      await expectExactReports(later);
    });
  });
}

function normalize(row: { account_id: string; dimension: string; period: string; value: string; requests: unknown; prompt_tokens: unknown; completion_tokens: unknown; cost: unknown }) {
  return { ...row, requests: String(row.requests), prompt_tokens: String(row.prompt_tokens), completion_tokens: String(row.completion_tokens), cost: String(row.cost) };
}
