import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadJob } from './load-generator.js';
import { requestBody } from './run-benchmark.js';
import { runLoadPhase } from './run-load-phase.js';
import { startSwitchyardScaleOut } from './start-scale-out.js';
import { startMinimalProxyTarget, startSimulatorProcess, startSwitchyardTarget, type RunningTarget } from './start-targets.js';

/**
 * A/B of two builds of the gateway on this machine: `node --import tsx bench/compare-builds.ts
 * --base DIR [--head DIR]` starts one simulator, the minimal proxy and `switchyard serve` from
 * each tree (each built, with its own SQLite), then measures them in alternating rounds so that
 * a machine whose speed drifts (shared cores) moves all of them alike. Prints each round's CPU
 * per request and the medians. For deciding whether a change to the hot path helps; `npm run
 * bench` remains the benchmark of record.
 *
 * With `--database-url` and `--redis-url` (or BENCH_DATABASE_URL / BENCH_REDIS_URL) each tree also
 * runs as switchyard-pg (one instance on PostgreSQL + Redis, one hot account, the default leases;
 * `base-pg`, `head-pg`), and the report adds each target's throughput and the PostgreSQL/SQLite
 * ratios of each build (CPU per request and throughput, medians of the rounds' ratios); the books
 * of each PostgreSQL target are checked at the end.
 * `--style messages` sends Anthropic Messages requests (to the simulator's Anthropic model) to the
 * two SQLite builds; the floor keeps Chat Completions.
 */
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '3000' },
    mode: { type: 'string', default: 'stream' },
    /** The API style of the two builds' requests (the floor always takes Chat Completions). */
    style: { type: 'string', default: 'chat' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL },
    'redis-url': { type: 'string', default: process.env.BENCH_REDIS_URL },
  },
});
if (!values.base) throw new Error('--base DIR (a built work tree) is required');
const roots = { base: resolve(values.base), head: resolve(values.head!) };
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const stream = values.mode === 'stream';
const style = values.style === 'messages' ? 'messages' : 'chat';

const scratch = await mkdtemp(join(tmpdir(), 'switchyard-ab-'));
const simulator = await startSimulatorProcess(roots.head, { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
const databaseUrl = values['database-url'];
const redisUrl = values['redis-url'];
const targets: Array<{ name: string; target: RunningTarget; checkBooks?: () => Promise<unknown> }> = [];
try {
  targets.push({ name: 'minimal', target: await startMinimalProxyTarget(roots.head, simulator) });
  for (const [name, root] of Object.entries(roots)) {
    targets.push({ name, target: await startSwitchyardTarget(root, simulator, { directory: await mkdtemp(join(scratch, `${name}-`)), logLevel: 'info', style }) });
  }
  if (databaseUrl && redisUrl) {
    for (const [name, root] of Object.entries(roots)) {
      const directory = await mkdtemp(join(scratch, `${name}-pg-`));
      const target = await startSwitchyardScaleOut(root, 'switchyard-pg', simulator, { databaseUrl, redisUrl, instances: 1, accounts: 1, directory, logLevel: 'info' });
      targets.push({ name: `${name}-pg`, target, checkBooks: () => target.checkBooks() });
    }
  }
  const results = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
  const throughputs = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const line: string[] = [];
    // Every other round in reverse, so that no target always runs right after the same one.
    for (const { name, target } of round % 2 === 0 ? targets : [...targets].reverse()) {
      const body = requestBody(target.model, stream ? 'stream' : 'json', target.style ?? 'chat');
      const job: LoadJob = { origin: target.origin, path: target.path, headers: target.headers, body, style: target.style, stream, concurrency: 32, warmupRequests: 500, requests, maxDurationMs: 15_000 };
      const measured = await runLoadPhase(roots.head, job, { proxy: target.pid, upstream: simulator.pid }, 120_000);
      const handled = measured.load.completed + measured.load.errors;
      const micros = (measured.proxyCpuMicros ?? Number.NaN) / handled;
      results.get(name)!.push(micros);
      throughputs.get(name)!.push(measured.load.throughput);
      line.push(`${name} ${micros.toFixed(0)} µs ${measured.load.throughput.toFixed(0)} req/s${measured.load.errors > 0 ? ` (${measured.load.errors} errors)` : ''}`);
    }
    console.log(`round ${round + 1}: ${line.join(', ')}`);
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const minimal = median(results.get('minimal')!);
  for (const [name, list] of results) {
    console.log(`${name}: median ${median(list).toFixed(0)} µs/request (${(median(list) / minimal).toFixed(2)}× minimal), ${median(throughputs.get(name)!).toFixed(0)} req/s`);
  }
  const ratio = (series: Map<string, number[]>, over: string, under: string) => series.get(over)!.map((value, index) => value / series.get(under)![index]);
  const ratios = ratio(results, 'head', 'base');
  console.log(`head / base, per round: ${ratios.map((value) => value.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(3)}`);
  if (results.has('head-pg')) {
    for (const build of ['base', 'head']) {
      const cpu = ratio(results, `${build}-pg`, build);
      const throughput = ratio(throughputs, `${build}-pg`, build);
      console.log(`${build}: PostgreSQL / SQLite CPU per request ${median(cpu).toFixed(2)}× (${cpu.map((value) => value.toFixed(2)).join(' ')}), throughput ${median(throughput).toFixed(2)}× (${throughput.map((value) => value.toFixed(2)).join(' ')})`);
    }
    const pg = ratio(results, 'head-pg', 'base-pg');
    const pgThroughput = ratio(throughputs, 'head-pg', 'base-pg');
    console.log(`head-pg / base-pg: CPU per request median ${median(pg).toFixed(3)}, throughput median ${median(pgThroughput).toFixed(3)}`);
    for (const { name, checkBooks } of targets) if (checkBooks) console.log(`${name} books: ${JSON.stringify(await checkBooks())}`);
  }
} finally {
  for (const { target } of targets) await target.stop();
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
