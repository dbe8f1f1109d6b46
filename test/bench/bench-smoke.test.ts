import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBenchmark, type BenchmarkResult } from '../../bench/run-benchmark.js';
import { writeResults } from '../../bench/write-results.js';
import { formatResults } from '../../bench/format-results.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Proves `npm run bench` works end to end: real child processes (simulator, minimal proxy,
// `switchyard serve` on SQLite), a separate load generator, CPU from /proc, results as JSON.
// A handful of requests only: the numbers must be sane, not meaningful.
describe('npm run bench (smoke)', () => {
  let directory: string | undefined;
  afterAll(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('measures direct, the minimal proxy and Switchyard, and writes sane results', async () => {
    directory = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
    const result = await runBenchmark({
      root,
      targets: ['direct', 'minimal', 'switchyard'],
      modes: ['json', 'stream'],
      concurrency: 4,
      requests: 60,
      streamRequests: 40,
      warmupRequests: 10,
      probeRequests: 10,
      maxPhaseSeconds: 20,
      simulator: { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 },
      logLevel: 'warn',
      profile: false,
      // The other suites keep the machine busy: no waiting for quiet here.
      quietWaitMs: 0,
    });
    await writeResults(result, directory);
    const written = JSON.parse(await readFile(join(directory, 'latest.json'), 'utf8')) as BenchmarkResult;
    expect(written).toEqual(result);

    expect(result.targets).toMatchObject({ direct: { status: 'measured' }, minimal: { status: 'measured' }, switchyard: { status: 'measured' }, portkey: { status: 'skipped' } });
    expect(result.phases.map((phase) => `${phase.target} ${phase.mode}`)).toEqual([
      'direct json', 'direct stream', 'minimal json', 'minimal stream', 'switchyard json', 'switchyard stream',
    ]);
    const direct = (mode: string) => result.phases.find((phase) => phase.target === 'direct' && phase.mode === mode)!;
    for (const phase of result.phases) {
      const label = `${phase.target} ${phase.mode}`;
      expect(phase.errors, `${label}: ${phase.firstError}`).toBe(0);
      expect(phase.completed, label).toBe(phase.mode === 'json' ? 60 : 40);
      expect(phase.throughput, label).toBeGreaterThan(0);
      expect(Number.isFinite(phase.throughput), label).toBe(true);
      expect(phase.latencyMs.p50, label).toBeGreaterThan(0);
      expect(phase.latencyMs.p99, label).toBeGreaterThanOrEqual(phase.latencyMs.p50);
      expect(phase.probe?.completed, label).toBe(10);
      if (phase.mode === 'stream') expect(phase.chunksPerRequest, label).toBeGreaterThanOrEqual(16);
      if (phase.target === 'direct') {
        expect(phase.proxy, label).toBeNull();
        continue;
      }
      expect(phase.addedLatencyMs, label).not.toBeNull();
      // At concurrency 1: added to direct's, and over the floor's (the minimal proxy's own is not).
      expect(phase.probe?.addedLatencyMs, label).toEqual({
        p50: expect.closeTo(phase.probe!.latencyMs.p50 - direct(phase.mode).probe!.latencyMs.p50, 3),
        p99: expect.closeTo(phase.probe!.latencyMs.p99 - direct(phase.mode).probe!.latencyMs.p99, 3),
      });
      if (phase.target === 'minimal') expect(phase.probe?.overFloorMs, label).toBeNull();
      else {
        const floor = result.phases.find((other) => other.target === 'minimal' && other.mode === phase.mode)!;
        expect(phase.probe?.overFloorMs, label).toEqual({
          p50: expect.closeTo(phase.probe!.latencyMs.p50 - floor.probe!.latencyMs.p50, 3),
          p99: expect.closeTo(phase.probe!.latencyMs.p99 - floor.probe!.latencyMs.p99, 3),
        });
      }
      expect(phase.proxy, label).not.toBeNull();
      // /proc counts CPU in 10 ms ticks: a few dozen requests may read 0 for the lean proxy.
      expect(phase.proxy!.cpuMicrosPerRequest, label).toBeGreaterThanOrEqual(0);
      expect(phase.proxy!.cpuMicrosPerRequest, label).toBeLessThan(1_000_000);
      expect(phase.proxy!.rssMb, label).toBeGreaterThan(10);
    }
    const switchyardCpu = result.phases.filter((phase) => phase.target === 'switchyard').map((phase) => phase.proxy!.cpuMicrosPerRequest);
    expect(switchyardCpu.some((cpu) => cpu > 0)).toBe(true);
    const table = formatResults(result);
    expect(table).toContain('| over floor p50 / p99 ms @c=1 |');
    expect(table).toMatch(/Added latency at concurrency 1 over the floor, p50 \/ p99 \(non-streaming\): switchyard -?\d+\.\d{3} \/ -?\d+\.\d{3} ms/);
  }, 120_000);

  it('with several rounds, reports each ratio as the median of the rounds', async () => {
    const result = await runBenchmark({
      root,
      targets: ['minimal', 'switchyard'],
      modes: ['json'],
      concurrency: 4,
      requests: 200,
      streamRequests: 10,
      warmupRequests: 10,
      probeRequests: 0,
      maxPhaseSeconds: 20,
      rounds: 3,
      simulator: { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 },
      logLevel: 'warn',
      profile: false,
      // The other suites keep the machine busy: no waiting for quiet here.
      quietWaitMs: 0,
    });
    expect(result.rounds).toHaveLength(3);
    expect(result.phases.map((phase) => `${phase.target} ${phase.mode}`)).toEqual(['minimal json', 'switchyard json']);
    const perRound = result.rounds!.map((round) => round.cpuRatios.json.switchyardVsMinimal).filter((ratio): ratio is number => typeof ratio === 'number');
    expect(perRound.length).toBeGreaterThan(0);
    const sorted = [...perRound].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    expect(result.cpuRatios.json.switchyardVsMinimal).toBeCloseTo(median, 2);
  }, 180_000);
});
