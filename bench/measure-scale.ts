// `npm run bench:scale [-- options]`: seeds 1M accounts, a year of usage for a 1,000-key ×
// 20-model account and a 10M-row request log on SQLite and PostgreSQL (once: a later run reuses
// the seeded file and schema), starts `switchyard serve` on each and times every list and report
// through the HTTP API with /health pinged every 5 ms alongside. Prints a table against the goals
// of issue 54 and writes bench/results/scale-<timestamp>.json. See bench/README.md, "Scale".
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanUp, cleanUpNow } from './child-process.js';
import { formatScaleTable, writeScaleResults } from './format-scale-results.js';
import type { ScaleLocation } from './prepare-scale-database.js';
import { measureScale } from './run-scale.js';
import { maxModels, type ScaleShape } from './scale-sql.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `npm run bench:scale -- [options]
  --stores LIST         sqlite,postgres (default both; postgres needs BENCH_DATABASE_URL or --postgres-url)
  --accounts N          accounts (default 1000000)
  --keys N              keys of the big account (default 1000)
  --models N            models it uses every day, at most ${maxModels} (default 20)
  --days N              days of usage and of request log, ending today (default 365)
  --requests N          request log rows (default 10000000; 100000000 for the issue's large log)
  --batches N           files of the big account, and as many batches (a quarter OpenAI's, the
                        rest Message Batches) (default 100000)
  --calls N             calls per read (default 100; a page walk is its pages)
  --read-seconds S      stop a read after S seconds once it has --min-calls (default 20)
  --min-calls N         (default 5)
  --call-timeout S      abandon a call after S seconds; it fails its read (default 60)
  --sqlite-path FILE    the SQLite cache (default <tmp>/switchyard-scale/<shape>.db)
  --postgres-url URL    (default BENCH_DATABASE_URL)
  --schema NAME         the PostgreSQL cache schema (default bench_scale_<shape>)
  --reseed              seed again even when the cache holds this shape
  --reads PREFIXES      only the reads whose names start with one of these, comma-separated
                        (e.g. requests,request_ for the request log alone, issue 52)
  --out DIR             results directory (default bench/results)`;

function whole(name: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number above 0, got ${text}`);
  return value;
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      stores: { type: 'string', default: 'sqlite,postgres' },
      accounts: { type: 'string', default: '1000000' },
      keys: { type: 'string', default: '1000' },
      models: { type: 'string', default: '20' },
      days: { type: 'string', default: '365' },
      requests: { type: 'string', default: '10000000' },
      batches: { type: 'string', default: '100000' },
      calls: { type: 'string', default: '100' },
      'read-seconds': { type: 'string', default: '20' },
      'min-calls': { type: 'string', default: '5' },
      'call-timeout': { type: 'string', default: '60' },
      'sqlite-path': { type: 'string' },
      'postgres-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? '' },
      schema: { type: 'string' },
      reseed: { type: 'boolean', default: false },
      reads: { type: 'string' },
      out: { type: 'string', default: join(root, 'bench', 'results') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const shape: ScaleShape = {
    accounts: whole('accounts', values.accounts),
    keys: whole('keys', values.keys),
    models: whole('models', values.models),
    days: whole('days', values.days),
    requestRows: whole('requests', values.requests),
    batchRows: whole('batches', values.batches),
  };
  if (shape.models > maxModels) throw new Error(`--models must be at most ${maxModels}`);
  if (shape.keys < 2) throw new Error('--keys must be at least 2 (the management key and an ordinary one)');
  const tag = `a${shape.accounts}_k${shape.keys}_m${shape.models}_d${shape.days}_r${shape.requestRows}_b${shape.batchRows}`;
  const locations: ScaleLocation[] = values.stores.split(',').map((store) => {
    if (store === 'sqlite') return { dialect: 'sqlite', sqlitePath: resolve(values['sqlite-path'] ?? join(tmpdir(), 'switchyard-scale', `${tag}.db`)) };
    if (store === 'postgres') return { dialect: 'postgres', postgresUrl: values['postgres-url'] || undefined, schema: values.schema ?? `bench_scale_${tag}` };
    throw new Error(`unknown store '${store}' (sqlite, postgres)`);
  });
  const timing = { calls: whole('calls', values.calls), readSeconds: whole('read-seconds', values['read-seconds']), minCalls: whole('min-calls', values['min-calls']), callTimeoutSeconds: whole('call-timeout', values['call-timeout']) };
  const reads = values.reads ? values.reads.split(',').filter((prefix) => prefix.length > 0) : undefined;
  return { shape, locations, timing, reseed: values.reseed, reads, out: values.out };
}

async function main(): Promise<void> {
  const options = readOptions();
  process.once('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const results = await measureScale({ root, ...options, say });
    say(`\n${formatScaleTable(results)}`);
    say(`results: ${await writeScaleResults(results, options.out)}`);
    process.exitCode = results.pass ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

await main();
