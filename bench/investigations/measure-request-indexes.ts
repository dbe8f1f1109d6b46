// What the request log's secondary indexes cost each request's row on SQLite, in one process:
//
//   node --import tsx bench/investigations/measure-request-indexes.ts [--rounds 3] [--batches 6000] [--size 9]
//
// Each variant is a fresh SQLite file (WAL, the store's own settings and migrations) into which
// batches of `size` request rows are inserted by the books writer's own prepared statement, one
// transaction a batch (a settlement batch's commit; ~9 rows is the average batch under the
// benchmark's load). Variants: `current` (the schema as migrated), `full-status` (the status index
// over every row, as before migration 2026-11-26-1500) and `no-secondary` (only the primary key:
// what all the secondary indexes cost together). Reports CPU µs per row (user + system, this
// process), the median of the rounds; the rounds alternate between the variants.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RequestRecord } from '../../src/billing/request-record.js';
import { createId } from '../../src/core/ids.js';
import { createStore, migrateToLatest } from '../../src/store/create-store.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';
import { prepareBooksStatements } from '../../src/billing/db/books-sqlite.js';
import { toRequestRow } from '../../src/billing/db/requests.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, batches: { type: 'string', default: '6000' }, size: { type: 'string', default: '9' } } });
const rounds = Number(values.rounds);
const batches = Number(values.batches);
const size = Number(values.size);
const variants = ['current', 'full-status', 'no-secondary'] as const;
type Variant = (typeof variants)[number];

async function measure(variant: Variant): Promise<number> {
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-indexes-'));
  const store = await createStore(`sqlite:${join(directory, 'bench.sqlite')}`);
  try {
    await migrateToLatest(store);
    const database = store.sqlite!;
    const accountId = createId('acc');
    await insertAccount(store.db, { id: accountId, name: 'bench', createdAt: new Date().toISOString() });
    if (variant === 'full-status') {
      database.exec('drop index requests_account_status_idx; create index requests_account_status_idx on requests (account_id, status, id)');
    } else if (variant === 'no-secondary') {
      const indexes = database.prepare("select name from sqlite_master where type = 'index' and tbl_name = 'requests' and sql is not null").all() as Array<{ name: string }>;
      for (const { name } of indexes) database.exec(`drop index ${name}`);
    }
    const statements = prepareBooksStatements(database);
    const write = database.transaction((rows: RequestRecord[]) => {
      for (const row of rows) statements.insertRequestRow(toRequestRow(row));
    });
    const batch = (): RequestRecord[] =>
      Array.from({ length: size }, () => ({
        id: createId('req'),
        accountId,
        keyId: null,
        model: 'bench/gpt-sim',
        provider: 'bench-sim',
        endpoint: '/chat/completions',
        streamed: false,
        status: 'completed',
        errorCode: null,
        latencyMs: 12,
        promptTokens: 12,
        completionTokens: 16,
        cachedTokens: 0,
        reasoningTokens: 0,
        cost: 700n,
        estimated: false,
        createdAt: new Date().toISOString(),
      }));
    // Warm-up: the statement, V8's tiers, the page cache.
    for (let index = 0; index < Math.min(2000, batches); index += 1) write(batch());
    const before = process.cpuUsage();
    for (let index = 0; index < batches; index += 1) write(batch());
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (batches * size);
  } finally {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  }
}

const results = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const variant of variants) results.get(variant)!.push(await measure(variant));
  process.stdout.write(`round ${round + 1}: ${variants.map((variant) => `${variant} ${results.get(variant)!.at(-1)!.toFixed(1)}`).join(', ')} µs per row\n`);
}
const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[numbers.length >> 1];
process.stdout.write(`${JSON.stringify({ rounds, batches, size, microsPerRow: Object.fromEntries(variants.map((variant) => [variant, Number(median(results.get(variant)!).toFixed(1))])) })}\n`);
