import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../bench/check-books.js';
import { quantile, runOpenLoopLoad, type LoadRequest } from '../helpers/run-open-loop-load.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { killSpawnedServers, spawnServer, spawnSimulator } from '../helpers/spawn-server.js';
import { countDeadlocks, createTestDatabase } from '../helpers/test-databases.js';

/**
 * Issue 17, acceptance: one instance on PostgreSQL + Redis soaked at 200 mixed requests/s from a
 * cold start — JSON and streams, Chat Completions and Messages, three upstream protocols, and a
 * few streams the client gives up on (which is what first needs the tokenizer). In every interval,
 * the first included: no unexpected error, p99 of the non-streamed requests under 500 ms; the
 * heap's low point does not climb; the books are exact at the end.
 *
 * Duration: the issue's probe ran 3 minutes. Here the soak runs at least SOAK_DURATION_MS
 * (default 60 s) and then until the process has lived through two major (Mark-Compact) GCs under
 * load, at most SOAK_MAX_DURATION_MS (default 180 s, the issue's 3 minutes); figures are per
 * 15-second interval. With the tokenizer built before the listener opens, the first major GC
 * under load came after 45–50 s and the next ones every 10–35 s (Node 20, measured), so a run
 * usually ends after 80–100 s; one that reaches the cap without two fails, so no setting can
 * pass by missing them. The heap is what the load makes it: no heap-size flag, only
 * `--trace-gc` to read it.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
if (!postgresUrl || !redisUrl) process.stdout.write('Soak SKIPPED: set TEST_DATABASE_URL=postgres://… and TEST_REDIS_URL=redis://… to run it\n');
afterAll(killSpawnedServers);

const MIN_DURATION_MS = Number(process.env.SOAK_DURATION_MS) || 60_000;
const MAX_DURATION_MS = Math.max(MIN_DURATION_MS, Number(process.env.SOAK_MAX_DURATION_MS) || 180_000);
const INTERVAL_MS = 15_000;
/** Major GCs under load the soak lives through before it stops (after MIN_DURATION_MS). */
const MAJOR_GCS = 2;
const RATE = 200;
/** How long the load generator is warmed against the simulator before the gateway's load. */
const GENERATOR_WARM_UP_MS = 3_000;
const P99_BOUND_MS = 500;
const ACCOUNTS = 10;
const ADMIN_TOKEN = 'soak-admin-token';
const MODELS = ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model', 'sim/everywhere'];

/** 60 % JSON, 38 % streams, 2 % streams the client abandons after 150 ms; both wires, four models. */
function pick(index: number): LoadRequest {
  const model = MODELS[index % MODELS.length];
  const wire = Math.floor(index / MODELS.length) % 3 === 2 ? 'messages' : 'chat';
  const slot = index % 50;
  if (slot === 7) return { wire, stream: true, model, replyTokens: 64, abortAfterMs: 150 };
  return { wire, stream: slot % 5 >= 3, model, replyTokens: 16 };
}

/** One `--trace-gc` line: when it arrived, the kind of collection, and the heap in use after it (MB). */
interface GcEvent {
  /** The V8 isolate that collected: the main thread's, or a worker's (the token counter). */
  isolate: string;
  atMs: number;
  major: boolean;
  afterMb: number;
  /** The pause the collection's trace line reports (ms), when it reports one. */
  pauseMs?: number;
}

// "[pid:0x<isolate>]   1234 ms: Mark-Compact 45.6 (60.1) -> 30.2 (58.3) MB, …" (also Scavenge,
// Minor Mark-Compact); the milliseconds count from the isolate's start.
const GC_PAUSE = /MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;
const GC_LINE = /^\[\d+:(0x[\da-f]+)\]\s+(\d+) ms: ([A-Za-z -]+?)(?: \([a-z ]+\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

/** The page cache's data not yet written to disk (MB), as /proc/meminfo says; -1 where there is none. */
function dirtyMegabytes(): number {
  try {
    const kilobytes = /^Dirty:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    return kilobytes === undefined ? -1 : Math.round(Number(kilobytes) / 1024);
  } catch {
    return -1;
  }
}

describe.skipIf(!postgresUrl || !redisUrl)('soak of one instance at 200 mixed requests/s', () => {
  it('keeps p99 of non-streamed requests under 500 ms in every interval, the heap low point flat, and no unexpected error', async () => {
    const database = await createTestDatabase(postgresUrl!);
    const simulator = await spawnSimulator({ latencyMs: 5, tokensPerSecond: 40 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-soak-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, simulatedCatalogYaml(simulator.url));
    // The instance starts as `serve` does by default, warm-up included (src/cli/warm-up.ts):
    // without it, the first 1–2 s ran at half the rate and the first interval's p99 was 0.7–3 s.
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl!, SWITCHYARD_CONFIG: configPath, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN, HOST: '127.0.0.1', LOG_LEVEL: 'warn', SWITCHYARD_WARMUP_REQUESTS: undefined };
    const books = new pg.Client({ connectionString: database.url });
    try {
      const { child, url } = await spawnServer(env, undefined, ['--trace-gc']);
      const gcEvents: GcEvent[] = [];
      // Every isolate of the process traces its collections, the token counter's worker too (its
      // ~17 MB heap collected while it counts): counted with the main thread's, its collections
      // ended the soak early and set the heap's "low point" the flatness check compared against.
      // The main isolate is the one that started first: for each, the earliest start its lines
      // imply (arrival less the isolate's own milliseconds).
      const isolateStarts = new Map<string, number>();
      const mainIsolate = () => [...isolateStarts].reduce<[string, number] | undefined>((first, entry) => (first === undefined || entry[1] < first[1] ? entry : first), undefined)?.[0];
      const errorLines: string[] = [];
      let loadStarted = Number.POSITIVE_INFINITY;
      let pending = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString()).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const gc = GC_LINE.exec(line);
          if (gc) {
            const now = Date.now();
            isolateStarts.set(gc[1], Math.min(isolateStarts.get(gc[1]) ?? Number.POSITIVE_INFINITY, now - Number(gc[2])));
            gcEvents.push({ isolate: gc[1], atMs: now - loadStarted, major: gc[3] === 'Mark-Compact', afterMb: Number(gc[4]), pauseMs: Number(GC_PAUSE.exec(line)?.[1] ?? Number.NaN) });
          } else if (line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50) errorLines.push(line);
        }
      });
      const keys: string[] = [];
      const accountIds: string[] = [];
      for (let index = 0; index < ACCOUNTS; index += 1) {
        const response = await fetch(`${url}/admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `soak ${index}`, credits: 1000 }) });
        const created = (await response.json()) as { key: string; data: { id: string } };
        keys.push(created.key);
        accountIds.push(created.data.id);
      }
      // The gateway starts cold; the load generator (this process) and the simulator, which
      // stand for many long-running clients and a provider, do not: the same load runs against
      // the simulator directly first. A cold generator reads the first seconds' answers slowly
      // itself: against a fresh gateway, the first 3 s measured p99 107–161 ms with a cold
      // generator and 66–100 ms with a warm one (4 runs each, this machine).
      const generatorWarmUp = await runOpenLoopLoad({ url: simulator.url, paths: { chat: '/openai/v1/chat/completions', messages: '/anthropic/v1/messages' }, keys: ['sim-key'], ratePerSecond: RATE, pick, shouldStop: () => false, maxDurationMs: GENERATOR_WARM_UP_MS, connections: 512 });
      expect(generatorWarmUp.filter((outcome) => outcome.error !== undefined).map((outcome) => outcome.error).slice(0, 3)).toEqual([]);
      // The suites before this one leave the machine's page cache full of data not yet written
      // (databases made and dropped, logs, files), which the kernel writes back when it expires.
      // While it does, every fsync waits behind it, PostgreSQL's commits with them, and every
      // answer with the commit of its charge (and, past a second of that, every reservation): with 3 GB written just before the soak, its
      // requests sent ~30 s in took ~400 ms, and with 6 GB being written meanwhile the first
      // interval's p99 was 932 ms (this machine; a CI run failed on 796 ms so). That is the disk of
      // the machine the tests share, not the instance under load: it is written out first.
      const dirtyBeforeMb = dirtyMegabytes();
      const synced = spawnSync('sync');
      expect(synced.status, 'sync').toBe(0);
      // From a cold start: the load begins as soon as the instance says it is ready.
      for (let attempt = 0; attempt < 600 && (await fetch(`${url}/ready`).then((response) => response.status)) !== 200; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      loadStarted = Date.now();
      // The load generator's own major collections: a pause of this process delays sends and
      // lengthens every answer it is reading, and would show as a stall of the gateway's.
      const clientPauses: string[] = [];
      const clientGc = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
          if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR || entry.duration > 50) clientPauses.push(`${Math.round(entry.duration)} ms at ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
        }
      });
      clientGc.observe({ entryTypes: ['gc'] });
      const majorsUnderLoad = () => {
        const main = mainIsolate();
        return gcEvents.filter((event) => event.isolate === main && event.major && event.atMs >= 0).length;
      };
      const outcomes = await runOpenLoopLoad({
        url,
        keys,
        ratePerSecond: RATE,
        pick,
        shouldStop: (elapsed) => elapsed >= MIN_DURATION_MS && majorsUnderLoad() >= MAJOR_GCS,
        maxDurationMs: MAX_DURATION_MS,
        connections: 512,
      });
      clientGc.disconnect();
      // The load's end as the stop condition saw it: the GC that ended the soak may come after the
      // last request was sent, while answers were still under way, and still counts as under load.
      const loadEndedMs = Date.now() - loadStarted;
      const durationMs = outcomes.reduce((last, outcome) => Math.max(last, outcome.sentAtMs), 0);
      // A last interval shorter than half of one joins the one before it.
      const intervalCount = Math.max(1, Math.round(durationMs / INTERVAL_MS));

      const unexpected = outcomes.filter((outcome) => outcome.error !== undefined || (outcome.aborted && outcome.request.abortAfterMs === undefined));
      const intervalOf = (atMs: number) => Math.min(intervalCount - 1, Math.floor(atMs / INTERVAL_MS));
      const main = mainIsolate();
      const majorsUnderLoadOf = (ofMain: boolean) => gcEvents.filter((event) => (event.isolate === main) === ofMain && event.major && event.atMs >= 0 && event.atMs <= loadEndedMs);
      const majors = majorsUnderLoadOf(true);
      const workerMajors = majorsUnderLoadOf(false);
      const intervals = Array.from({ length: intervalCount }, (_, interval) => {
        const inInterval = outcomes.filter((outcome) => intervalOf(outcome.sentAtMs) === interval);
        const json = inInterval.filter((outcome) => !outcome.request.stream && outcome.error === undefined).map((outcome) => outcome.latencyMs);
        const inIntervalMajors = majors.filter((event) => intervalOf(event.atMs) === interval);
        return {
          requests: inInterval.length,
          jsonP99Ms: Math.round(quantile(json, 0.99)),
          jsonMaxMs: Math.round(quantile(json, 1)),
          majorGcs: inIntervalMajors.length,
          // The heap's low point: what a full collection leaves (undefined in an interval without one).
          heapLowMb: inIntervalMajors.length > 0 ? Math.min(...inIntervalMajors.map((event) => event.afterMb)) : undefined,
        };
      });
      process.stdout.write(`soak: ${outcomes.length} requests, ${unexpected.length} unexpected errors; ${(durationMs / 1000).toFixed(0)} s; per ${INTERVAL_MS / 1000} s interval: ${JSON.stringify(intervals)}; main thread's heap after each major GC under load: ${majors.map((event) => `${event.afterMb} MB at ${(event.atMs / 1000).toFixed(1)} s (pause ${event.pauseMs} ms)`).join(', ')} (workers' major GCs under load, not counted: ${workerMajors.map((event) => `${event.afterMb} MB`).join(', ') || 'none'}); slowest non-streamed requests: ${outcomes
          .filter((outcome) => !outcome.request.stream && outcome.error === undefined)
          .sort((a, b) => b.latencyMs - a.latencyMs)
          .slice(0, 8)
          .map((outcome) => `${Math.round(outcome.latencyMs)} ms sent at ${(outcome.sentAtMs / 1000).toFixed(1)} s`)
          .join(', ')}; the load generator's major or long collections: ${clientPauses.join(', ') || 'none'} (written out before the load: ${dirtyBeforeMb} MB; main thread's major GCs before the load: ${gcEvents
          .filter((event) => event.isolate === main && event.major && event.atMs < 0)
          .map((event) => `${event.afterMb} MB`)
          .join(', ')})\n`);

      const firstErrors = unexpected.slice(0, 10).map((outcome) => `#${outcome.index} at ${Math.round(outcome.sentAtMs)} ms (${outcome.request.wire}${outcome.request.stream ? ' stream' : ''}): ${outcome.error ?? 'aborted'}`);
      expect({ unexpected: unexpected.length, firstErrors, errorLines: errorLines.slice(0, 5) }).toEqual({ unexpected: 0, firstErrors: [], errorLines: [] });
      expect(outcomes.length).toBeGreaterThan(RATE * (MIN_DURATION_MS / 1000) * 0.9);
      for (const [index, interval] of intervals.entries()) expect.soft(interval.jsonP99Ms, `interval ${index + 1}: ${JSON.stringify(interval)}`).toBeLessThan(P99_BOUND_MS);
      // The soak must have lived through major GCs, or the heap figures say nothing.
      expect(majors.length, `fewer than ${MAJOR_GCS} major GCs under load in ${Math.round(loadEndedMs)} ms (at most ${MAX_DURATION_MS}): raise SOAK_MAX_DURATION_MS`).toBeGreaterThanOrEqual(MAJOR_GCS);
      // Flat: the lowest heap a full collection leaves after the first one under load is no higher
      // than that first one, give or take 10 % + 5 MB of live request state. A leak raises every
      // later low point (1 kB a request would add ~12 MB a minute at this rate); a burst of
      // requests in flight raises only some.
      const laterLowMb = Math.min(...majors.slice(1).map((event) => event.afterMb));
      expect.soft(laterLowMb, `heap after major GCs: ${majors.map((event) => event.afterMb).join(', ')} MB`).toBeLessThanOrEqual(majors[0].afterMb * 1.1 + 5);

      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await books.connect();
      const checked = await checkBooks(books, 'public', accountIds);
      expect(checked, JSON.stringify(checked)).toMatchObject({ exact: true, openReservations: 0, negativeBalances: 0 });
      // One deadlock held 158 requests for over a second in the issue's soak.
      expect(await countDeadlocks(postgresUrl!, database.name)).toBe(0);
    } finally {
      killSpawnedServers();
      await books.end().catch(() => undefined);
      await database.drop();
    }
  }, MAX_DURATION_MS + 120_000);
});
