import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LoadJob } from './load-generator.js';
import { runLoadPhase } from './run-load-phase.js';
import { startMinimalProxyTarget, startSimulatorProcess, startSwitchyardTarget, type RunningTarget } from './start-targets.js';

/**
 * A/B of two builds of the gateway on this machine: `node --import tsx bench/compare-builds.ts
 * --base DIR [--head DIR]` starts one simulator, the minimal proxy and `switchyard serve` from
 * each tree (each built, with its own SQLite), then measures them in alternating rounds so that
 * a machine whose speed drifts (shared cores) moves all of them alike. Prints each round's CPU
 * per request and the medians. For deciding whether a change to the hot path helps; `npm run
 * bench` remains the benchmark of record.
 */
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '3000' },
    mode: { type: 'string', default: 'stream' },
  },
});
if (!values.base) throw new Error('--base DIR (a built work tree) is required');
const roots = { base: resolve(values.base), head: resolve(values.head!) };
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const stream = values.mode === 'stream';

const scratch = await mkdtemp(join(tmpdir(), 'switchyard-ab-'));
const simulator = await startSimulatorProcess(roots.head, { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
const targets: Array<{ name: string; target: RunningTarget }> = [];
try {
  targets.push({ name: 'minimal', target: await startMinimalProxyTarget(roots.head, simulator) });
  for (const [name, root] of Object.entries(roots)) {
    targets.push({ name, target: await startSwitchyardTarget(root, simulator, { directory: await mkdtemp(join(scratch, `${name}-`)), logLevel: 'info' }) });
  }
  const results = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const line: string[] = [];
    for (const { name, target } of targets) {
      const body: Record<string, unknown> = { model: target.model, messages: [{ role: 'user', content: 'Say something about gateways.' }] };
      if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
      const job: LoadJob = { origin: target.origin, path: target.path, headers: target.headers, body: JSON.stringify(body), stream, concurrency: 32, warmupRequests: 500, requests, maxDurationMs: 15_000 };
      const measured = await runLoadPhase(roots.head, job, { proxy: target.pid, upstream: simulator.pid }, 120_000);
      const handled = measured.load.completed + measured.load.errors;
      const micros = (measured.proxyCpuMicros ?? Number.NaN) / handled;
      results.get(name)!.push(micros);
      line.push(`${name} ${micros.toFixed(0)} µs`);
    }
    console.log(`round ${round + 1}: ${line.join(', ')}`);
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const minimal = median(results.get('minimal')!);
  for (const [name, list] of results) console.log(`${name}: median ${median(list).toFixed(0)} µs/request (${(median(list) / minimal).toFixed(2)}× minimal)`);
  const ratios = results.get('head')!.map((value, index) => value / results.get('base')![index]);
  console.log(`head / base, per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(3)}`);
} finally {
  for (const { target } of targets) await target.stop();
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
