// What issue 23's hot-path goal (CPU per request ≤ 1.5× the floor non-streaming, ≤ 2.0× streaming)
// leaves for the gateway's own steps, measured rather than argued:
//
//   node --import tsx bench/investigations/measure-lower-bound.ts [--rounds 5] [--requests 6000] [--modes json,stream]
//
// One simulator; the floor (`minimal-proxy.ts`); the floor on Fastify; the floor with the books
// (each answer waits for its settlement and request row, committed by the gateway's own
// RequestLog and SQLite writer); the floor on Fastify with the books (`lower-bound-proxy.ts`); and
// the gateway itself (`switchyard serve`, SQLite, everything on). Rounds alternate the order of the
// targets. Prints each round's CPU per request, then per target the median and its ratio to the
// floor (the median of the rounds' ratios), and how many µs a request the goal leaves for
// everything the lower bound leaves out (auth, routing, reservation, validation, translation,
// the log line, metrics): `goal × floor − fastify+books`. Then checks the books each
// books target wrote: one request row and one charge per POST it answered, charges = row costs.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createStore } from '../../src/store/create-store.js';
import type { RequestLogStats } from '../../src/billing/request-log.js';
import type { ManagedChild } from '../child-process.js';
import type { LoadJob } from '../load-generator.js';
import { BOOKS_STATS_PREFIX, LOWER_BOUND_COST } from './lower-bound-proxy.js';
import { round } from '../process-stats.js';
import { readSource, requestBody } from '../run-benchmark.js';
import { runLoadPhase } from '../run-load-phase.js';
import { startLowerBoundTarget, startMinimalProxyTarget, startSimulatorProcess, startSwitchyardTarget, type RunningTarget } from '../start-targets.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '6000' },
    modes: { type: 'string', default: 'json,stream' },
  },
});
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const modes = values.modes!.split(',').map((mode) => mode.trim()) as Array<'json' | 'stream'>;
const goals = { json: 1.5, stream: 2.0 };
const root = resolve('.');
const loadAverageAtStart = round(loadavg()[0], 2);

interface Target {
  name: string;
  target: RunningTarget;
  /** A lower-bound target with books: its SQLite file and its process. */
  books?: { path: string; child: ManagedChild };
}

/** The books writer's counts a lower-bound proxy printed as it exited. */
function printedBooksStats(child: ManagedChild): RequestLogStats {
  const line = child.outputTail().split('\n').findLast((one) => one.startsWith(BOOKS_STATS_PREFIX));
  if (!line) throw new Error(`the lower-bound proxy printed no books writer counts: ${child.outputTail()}`);
  return JSON.parse(line.slice(BOOKS_STATS_PREFIX.length)) as RequestLogStats;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1];
const scratch = await mkdtemp(join(tmpdir(), 'switchyard-lower-bound-'));
const simulator = await startSimulatorProcess(root, { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
const targets: Target[] = [];
const answered = new Map<string, number>();
try {
  targets.push({ name: 'floor', target: await startMinimalProxyTarget(root, simulator) });
  targets.push({ name: 'fastify', target: (await startLowerBoundTarget(root, simulator, { fastify: true })).target });
  for (const fastify of [false, true]) {
    const path = join(scratch, `${fastify ? 'fastify-' : ''}books.sqlite`);
    const { target, child } = await startLowerBoundTarget(root, simulator, { fastify, books: path });
    targets.push({ name: fastify ? 'fastify+books' : 'books', target, books: { path, child } });
  }
  targets.push({ name: 'switchyard', target: await startSwitchyardTarget(root, simulator, { directory: await mkdtemp(join(scratch, 'switchyard-')), logLevel: 'info' }) });
  const report: Record<string, unknown> = {
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', loadAverageAtStart },
    source: readSource(root),
    rounds,
    requests,
  };
  for (const mode of modes) {
    const cpu = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
    for (let index = 0; index < rounds; index += 1) {
      const line: string[] = [];
      for (const { name, target } of index % 2 === 0 ? targets : [...targets].reverse()) {
        const body = requestBody(target.model, mode, 'chat');
        const job: LoadJob = { origin: target.origin, path: target.path, headers: target.headers, body, style: 'chat', stream: mode === 'stream', concurrency: 32, warmupRequests: 500, requests, maxDurationMs: 15_000 };
        const measured = await runLoadPhase(root, job, { proxy: target.pid, upstream: simulator.pid }, 120_000);
        if (measured.load.errors > 0) throw new Error(`${name} ${mode}: ${measured.load.errors} errors (${measured.load.firstError})`);
        const handled = measured.load.completed + measured.load.errors;
        answered.set(name, (answered.get(name) ?? 0) + handled + job.warmupRequests);
        cpu.get(name)!.push((measured.proxyCpuMicros ?? Number.NaN) / handled);
        line.push(`${name} ${cpu.get(name)!.at(-1)!.toFixed(0)}`);
      }
      console.log(`${mode} round ${index + 1} (µs/request): ${line.join(', ')}`);
    }
    const floor = cpu.get('floor')!;
    const byTarget: Record<string, unknown> = {};
    for (const [name, list] of cpu) {
      const ratios = list.map((value, index) => value / floor[index]);
      byTarget[name] = { cpuMicrosPerRequest: round(median(list), 0), floorRatio: round(median(ratios), 2), floorRatios: ratios.map((ratio) => round(ratio, 2)) };
      console.log(`${mode} ${name}: ${median(list).toFixed(0)} µs/request, ${median(ratios).toFixed(2)}× the floor (rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')})`);
    }
    // What the goal leaves, in each round, for everything the lower bound leaves out.
    const left = floor.map((value, index) => goals[mode] * value - cpu.get('fastify+books')![index]);
    const gateway = cpu.get('switchyard')!.map((value, index) => value - cpu.get('fastify+books')![index]);
    console.log(`${mode}: the goal (${goals[mode]}× the floor) leaves ${median(left).toFixed(0)} µs/request (rounds ${left.map((value) => value.toFixed(0)).join(', ')}) for the gateway's steps beyond Fastify and the books; they cost ${median(gateway).toFixed(0)} (rounds ${gateway.map((value) => value.toFixed(0)).join(', ')})`);
    report[mode] = { goal: goals[mode], targets: byTarget, leftByGoalMicros: round(median(left), 0), gatewayStepsMicros: round(median(gateway), 0) };
  }
  for (const { target } of targets) await target.stop();
  // The books targets did the books' work: a row and a charge per POST answered (the health probes are GETs).
  const books: Record<string, unknown> = {};
  for (const { name, books: written } of targets) {
    if (!written) continue;
    const store = await createStore(`sqlite:${written.path}`);
    const database = store.sqlite!;
    const rows = Number((database.prepare('select count(*) as n from requests').get() as { n: number }).n);
    const costs = BigInt((database.prepare('select coalesce(sum(cost), 0) as n from requests').safeIntegers(true).get() as { n: bigint }).n);
    const charged = BigInt((database.prepare("select coalesce(sum(amount), 0) as n from ledger_entries where kind = 'charge'").safeIntegers(true).get() as { n: bigint }).n);
    await store.close();
    const exact = rows === answered.get(name) && costs === BigInt(rows) * LOWER_BOUND_COST && charged === costs;
    const stats = printedBooksStats(written.child);
    books[name] = { answered: answered.get(name), rows, costs: String(costs), charged: String(charged), exact, settlementsPerBatch: round(stats.written / stats.batches, 1) };
    console.log(`${name} books: ${rows} rows for ${answered.get(name)} requests answered, row costs ${costs}, charges ${charged} nano-USD: ${exact ? 'exact' : 'NOT exact'}; ${(stats.written / stats.batches).toFixed(1)} settlements a batch`);
    if (!exact) process.exitCode = 1;
  }
  report.books = books;
  console.log(JSON.stringify(report, null, 2));
} finally {
  for (const { target } of targets) await target.stop();
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
