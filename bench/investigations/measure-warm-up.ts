import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadJob } from '../load-generator.js';
import { runLoadPhase } from '../run-load-phase.js';
import { requestBody } from '../run-benchmark.js';
import { startSwitchyardScaleOut } from '../start-scale-out.js';
import { startSimulatorProcess, startSwitchyardTarget, type RunningTarget } from '../start-targets.js';

/**
 * How a fresh instance's CPU per request falls as it warms up:
 *
 *   node --import tsx bench/investigations/measure-warm-up.ts [--base DIR] [--head DIR] [--targets sqlite,pg] [--rounds 3] [--phases 8] [--requests 2000]
 *
 * Each round starts `switchyard serve` afresh for each target of each tree (the order reversed
 * every other round), which runs its own start-up warm-up, and sends it `phases` phases of
 * `requests` non-streaming requests at concurrency 32, none of them left out as warm-up. It
 * prints each phase's CPU per request, then per target the median over the rounds of each phase.
 * This is what decides how many requests `npm run bench` must leave out before it measures a
 * steady state. `sqlite` is the switchyard target; `pg` is switchyard-pg (one instance on
 * PostgreSQL + Redis, one hot account; BENCH_DATABASE_URL and BENCH_REDIS_URL). With `--base`,
 * each target runs from both trees, to compare two builds' start.
 */
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    targets: { type: 'string', default: 'sqlite,pg' },
    rounds: { type: 'string', default: '3' },
    phases: { type: 'string', default: '8' },
    requests: { type: 'string', default: '2000' },
  },
});
const kinds = values.targets!.split(',').filter((kind): kind is 'sqlite' | 'pg' => kind === 'sqlite' || kind === 'pg');
const databaseUrl = process.env.BENCH_DATABASE_URL;
const redisUrl = process.env.BENCH_REDIS_URL;
if (kinds.includes('pg') && (!databaseUrl || !redisUrl)) throw new Error('the pg target needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
const trees = values.base ? [{ name: 'base', root: resolve(values.base) }, { name: 'head', root: resolve(values.head!) }] : [{ name: '', root: resolve(values.head!) }];
const builds = trees.flatMap((tree) => kinds.map((kind) => ({ name: tree.name ? `${tree.name}-${kind}` : kind, root: tree.root, kind, phases: [] as number[][] })));
const phaseCount = Number(values.phases);
const requests = Number(values.requests);

const scratch = await mkdtemp(join(tmpdir(), 'switchyard-warm-up-'));
const simulator = await startSimulatorProcess(resolve(values.head!), { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
try {
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const directory = await mkdtemp(join(scratch, `${build.name}-`));
      const target: RunningTarget = build.kind === 'pg'
        ? await startSwitchyardScaleOut(build.root, 'switchyard-pg', simulator, { databaseUrl: databaseUrl!, redisUrl: redisUrl!, instances: 1, accounts: 1, directory, logLevel: 'info' })
        : await startSwitchyardTarget(build.root, simulator, { directory, logLevel: 'info' });
      const costs: number[] = [];
      try {
        const job: LoadJob = { origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.model, 'json', 'chat'), style: 'chat', stream: false, concurrency: 32, warmupRequests: 0, requests, maxDurationMs: 60_000 };
        for (let phase = 0; phase < phaseCount; phase += 1) {
          const measured = await runLoadPhase(build.root, job, { proxy: target.pid, upstream: simulator.pid }, 120_000);
          costs.push((measured.proxyCpuMicros ?? Number.NaN) / (measured.load.completed + measured.load.errors));
        }
      } finally {
        await target.stop();
      }
      build.phases.push(costs);
      console.log(`round ${round + 1} ${build.name}: ${costs.map((micros) => micros.toFixed(0)).join(' ')} µs/request`);
    }
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(`\nmedian CPU per request of each ${requests}-request phase from a fresh start:`);
  for (const build of builds) {
    const medians = Array.from({ length: phaseCount }, (_, phase) => median(build.phases.map((round) => round[phase])));
    console.log(`${build.name}: ${medians.map((micros) => micros.toFixed(0)).join(' ')} µs/request`);
  }
} finally {
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
