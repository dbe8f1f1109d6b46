// `npm run bench [-- options]`: runs the load benchmark, prints the table and writes
// bench/results/<timestamp>.json and bench/results/latest.json. See bench/README.md.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanUp, cleanUpNow } from './child-process.js';
import { formatResults } from './format-results.js';
import { ALL_MODES, ALL_TARGETS, runBenchmark, type BenchmarkOptions, type Mode } from './run-benchmark.js';
import type { TargetName } from './start-targets.js';
import { writeResults } from './write-results.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `npm run bench -- [options]
  --targets LIST          comma-separated: ${ALL_TARGETS.join(',')} (default: all)
  --modes LIST            comma-separated: json (non-streaming), stream, embeddings (default: all)
  --concurrency N         requests in flight (default 32)
  --requests N            measured non-streaming requests per target (default 10000)
  --stream-requests N     measured streaming requests per target (default 5000)
  --embedding-requests N  measured embeddings requests (64 inputs each) per target (default 2000)
  --warmup N              unmeasured requests before each phase (default 1000)
  --probe-requests N      requests at concurrency 1 per target and mode (default 300; 0 skips)
  --max-phase-seconds S   cap of each measured phase (default 15)
  --rounds N              measure every target N times, in turn, and report the medians (default 1): on a
                          machine whose speed drifts (shared cores) all targets then see alike conditions
  --latency MS            simulator delay before headers (default 0)
  --tps N                 simulator tokens per second, 0 = unpaced (default 0)
  --reply-tokens N        words per reply = streamed content chunks (default 16)
  --log-level LEVEL       Switchyard LOG_LEVEL (default info)
  --database-url URL      PostgreSQL of the scale-out targets (default BENCH_DATABASE_URL); each run uses a schema of its own
  --redis-url URL         Redis of the scale-out targets (default BENCH_REDIS_URL)
  --profile               also run the first of switchyard, switchyard-pg, switchyard-pg-many in --targets
                          under node --cpu-prof and print its hot spots
  --out DIR               results directory (default bench/results)
  --timeout S             give up and clean up after S seconds (default 600 per round)`;

function positiveInteger(name: string, text: string, allowZero = false): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw new Error(`--${name} must be a whole number${allowZero ? '' : ' above 0'}, got ${text}`);
  return value;
}

function readOptions(argv: string[]): BenchmarkOptions & { out: string; timeoutSeconds: number } {
  const { values } = parseArgs({
    args: argv,
    options: {
      targets: { type: 'string', default: ALL_TARGETS.join(',') },
      modes: { type: 'string', default: ALL_MODES.join(',') },
      concurrency: { type: 'string', default: '32' },
      requests: { type: 'string', default: '10000' },
      'stream-requests': { type: 'string', default: '5000' },
      'embedding-requests': { type: 'string', default: '2000' },
      warmup: { type: 'string', default: '1000' },
      'probe-requests': { type: 'string', default: '300' },
      'max-phase-seconds': { type: 'string', default: '15' },
      rounds: { type: 'string', default: '1' },
      latency: { type: 'string', default: '0' },
      tps: { type: 'string', default: '0' },
      'reply-tokens': { type: 'string', default: '16' },
      'log-level': { type: 'string', default: 'info' },
      'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? '' },
      'redis-url': { type: 'string', default: process.env.BENCH_REDIS_URL ?? '' },
      profile: { type: 'boolean', default: false },
      out: { type: 'string', default: join(root, 'bench', 'results') },
      timeout: { type: 'string', default: '' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const targets = values.targets.split(',').map((name) => name.trim()) as TargetName[];
  const unknown = targets.filter((name) => !ALL_TARGETS.includes(name));
  if (unknown.length > 0) throw new Error(`unknown target(s): ${unknown.join(', ')}; known: ${ALL_TARGETS.join(', ')}`);
  const modes = values.modes.split(',').map((name) => name.trim()) as Mode[];
  if (modes.some((mode) => !ALL_MODES.includes(mode))) throw new Error(`--modes takes ${ALL_MODES.join(', ')}, got ${values.modes}`);
  return {
    root,
    targets: ALL_TARGETS.filter((name) => targets.includes(name)),
    modes: ALL_MODES.filter((mode) => modes.includes(mode)),
    concurrency: positiveInteger('concurrency', values.concurrency),
    requests: positiveInteger('requests', values.requests),
    streamRequests: positiveInteger('stream-requests', values['stream-requests']),
    embeddingRequests: positiveInteger('embedding-requests', values['embedding-requests']),
    warmupRequests: positiveInteger('warmup', values.warmup, true),
    probeRequests: positiveInteger('probe-requests', values['probe-requests'], true),
    maxPhaseSeconds: positiveInteger('max-phase-seconds', values['max-phase-seconds']),
    rounds: positiveInteger('rounds', values.rounds),
    simulator: {
      latencyMs: positiveInteger('latency', values.latency, true),
      tokensPerSecond: positiveInteger('tps', values.tps, true),
      replyTokens: positiveInteger('reply-tokens', values['reply-tokens']),
    },
    logLevel: values['log-level'],
    databaseUrl: values['database-url'] || null,
    redisUrl: values['redis-url'] || null,
    profile: values.profile,
    out: resolve(values.out),
    // Ten minutes a round unless told otherwise.
    timeoutSeconds: values.timeout ? positiveInteger('timeout', values.timeout) : 600 * positiveInteger('rounds', values.rounds),
    log: (line) => process.stderr.write(`${line}\n`),
  };
}

let interrupted = false;

async function main(): Promise<void> {
  const { out, timeoutSeconds, ...options } = readOptions(process.argv.slice(2));
  // Children are stopped on every way out: normal end, error, Ctrl-C, SIGTERM, the time limit.
  process.once('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`bench: ${signal}; stopping\n`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: no result after ${timeoutSeconds} s; stopping\n`);
    void cleanUp().finally(() => process.exit(1));
  }, timeoutSeconds * 1000);
  watchdog.unref();
  if (options.profile) options.profileDirectory = out;
  const result = await runBenchmark(options);
  const file = await writeResults(result, out);
  process.stdout.write(`\n${formatResults(result)}\n\nwrote ${file} and latest.json\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch(async (error: unknown) => {
    if (interrupted) return;
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    await cleanUp();
    process.exit(1);
  });
}
