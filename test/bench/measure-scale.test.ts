import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatScaleTable, writeScaleResults, type ScaleResults } from '../../bench/format-scale-results.js';
import { prepareScaleDatabase, wipe, type ScaleLocation } from '../../bench/prepare-scale-database.js';
import { measureScale } from '../../bench/run-scale.js';
import { testDatabases, uniqueSchemaName } from '../helpers/test-databases.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const shape = { accounts: 1_000, keys: 10, models: 3, days: 365, requestRows: 10_000, batchRows: 1_000 };
const quiet = () => {};

// Proves `npm run bench:scale` works end to end at a tiny scale: the product's CLI makes the
// schema, the seed fills it with SQL, `switchyard serve` runs as a child and every read goes
// through its HTTP API and is checked against the seed. The figures are not judged here (the
// machine is shared); that each read has figures, a right answer and a verdict is.
describe.each(testDatabases())('npm run bench:scale on $name (tiny scale)', ({ name, url }) => {
  let directory: string | undefined;
  let location: ScaleLocation | undefined;
  afterAll(async () => {
    if (location) await wipe(location, false);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('seeds once, times every read through the API with right answers, and judges each goal', async () => {
    directory = await mkdtemp(join(tmpdir(), 'scale-bench-test-'));
    location = name === 'sqlite' ? { dialect: 'sqlite', sqlitePath: join(directory, 'scale.db') } : { dialect: 'postgres', postgresUrl: url, schema: uniqueSchemaName() };
    const results = await measureScale({ root, shape, locations: [location], reseed: false, timing: { calls: 3, readSeconds: 20, minCalls: 1, callTimeoutSeconds: 120 }, say: quiet });

    expect(results.stores).toHaveLength(1);
    const [store] = results.stores;
    expect(store.store).toBe(name);
    expect(store.seed.reused).toBe(false);
    expect(store.seed.seconds).toBeGreaterThan(0);
    const names = store.reads.map((read) => read.name);
    for (const expected of ['usage_year', 'usage_30_days', 'usage_year_ordinary_key', 'admin_usage_year', 'admin_search_email', 'admin_search_absent_name',
      'admin_search_common_word', 'admin_search_by_id', 'admin_accounts_newest', 'admin_account_keys', 'keys_list', 'requests_newest', 'requests_by_model',
      'requests_by_provider', 'requests_by_status_refused', 'requests_by_key_id', 'requests_by_end_user', 'requests_one_day_60_days_ago', 'request_by_id', 'requests_40_pages',
      'files_list_100', 'files_list_100_middle', 'files_list_default', 'batches_list', 'batches_list_100', 'batches_list_100_middle', 'message_batches_list', 'message_batches_list_100_middle']) {
      expect(names).toContain(expected);
    }
    for (const read of store.reads) {
      expect(read.problem, read.name).toBeNull();
      expect(read.calls, read.name).toBe(read.name === 'requests_40_pages' ? 40 : read.name.match(/_(\d+)_pages$/) ? Number(read.name.match(/_(\d+)_pages$/)![1]) : 3);
      expect(read.p50Ms, read.name).toBeGreaterThan(0);
      expect(read.p99Ms, read.name).toBeGreaterThanOrEqual(read.p50Ms);
      expect(read.maxMs, read.name).toBeGreaterThanOrEqual(read.p99Ms);
      expect(read.healthPings, read.name).toBeGreaterThan(0);
      expect(read.medianHealthMs, read.name).toBeGreaterThan(0);
      expect(read.worstHealthMs, read.name).toBeGreaterThanOrEqual(read.medianHealthMs);
      // The server exposes its event-loop metric behind the admin token, which the benchmark has.
      expect(read.loopDelayMaxMs, read.name).not.toBeNull();
      expect(read.pass, read.name).toBe(read.p99Ms < 20);
    }
    // The answers were checked against the seed: the year's usage is the seeded rollups' sum.
    expect(store.reads.find((read) => read.name === 'usage_year')?.rows).toBe(365);
    expect(store.reads.find((read) => read.name === 'admin_search_absent_name')?.rows).toBe(0);
    expect(store.goals.readsP99.failing).toEqual(store.reads.filter((read) => !read.pass).map((read) => read.name));
    expect(store.goals.eventLoop === null).toBe(name === 'postgres');
    expect(results.pass).toBe(store.goals.readsP99.pass && (store.goals.eventLoop?.pass ?? true));

    const table = formatScaleTable(results);
    for (const read of store.reads) expect(table).toContain(`| ${read.name} |`);
    expect(table).toMatch(new RegExp(`${name}: every read p99 < 20 ms: (PASS|FAIL)`));
    const file = await writeScaleResults(results, directory);
    expect(JSON.parse(await readFile(file, 'utf8')) as ScaleResults).toEqual(results);

    // A second run finds the marker row and measures the same seed again without seeding.
    const again = await prepareScaleDatabase(root, location, shape, { reseed: false, say: quiet });
    expect(again.reused).toBe(true);
    expect(again.marker.anchor).toEqual((await prepareScaleDatabase(root, location, shape, { reseed: false, say: quiet })).marker.anchor);
  }, 600_000);
});
