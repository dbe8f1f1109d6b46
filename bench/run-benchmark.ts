import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cleanUp, createScratchDirectory } from './child-process.js';
import type { LatencySummary, LoadJob } from './load-generator.js';
import { clockTicksPerSecond, round, waitForQuietMachine } from './process-stats.js';
import { runLoadPhase, type PhaseMeasurement, type ServerCommands } from './run-load-phase.js';
import {
  directTarget,
  portkeyEntry,
  startMinimalProxyTarget,
  startPortkeyTarget,
  startSimulatorProcess,
  startSwitchyardTarget,
  type RunningSimulator,
  type PassThroughTargetName,
  type RunningTarget,
  type ScaleOutTargetName,
  type SimulatorSettings,
  type TargetName,
} from './start-targets.js';
import type { BooksCheck } from './check-books.js';
import { startSwitchyardScaleOut } from './start-scale-out.js';
import { summarizeCpuProfile, type ProfileSummary, type TimeWindow } from './summarize-cpu-profile.js';
import { startTraceSink } from './start-trace-sink.js';

export const SCALE_OUT_TARGETS: ScaleOutTargetName[] = ['switchyard-pg', 'switchyard-pg-many', 'switchyard-pg3', 'switchyard-pg3-many', 'switchyard-pg3-leases'];
export const PASS_THROUGH_TARGETS: PassThroughTargetName[] = ['switchyard-translated', 'switchyard-messages', 'switchyard-messages-translated'];
export const ALL_TARGETS: TargetName[] = ['direct', 'minimal', 'switchyard', 'switchyard-traced', 'switchyard-cache', ...PASS_THROUGH_TARGETS, 'portkey', ...SCALE_OUT_TARGETS];

/** Instances and accounts of each scale-out target. */
// `leases` absent: the product's default (leases on, on PostgreSQL; docs/leases.md).
const SCALE_OUT_SHAPES: Record<ScaleOutTargetName, { instances: number; manyAccounts: boolean; leases?: boolean }> = {
  'switchyard-pg': { instances: 1, manyAccounts: false },
  'switchyard-pg-many': { instances: 1, manyAccounts: true },
  // Three instances on one hot account on the exact path (`SWITCHYARD_LEASES=off`): every
  // reservation one database call on the account's row, the comparison for switchyard-pg3-leases.
  'switchyard-pg3': { instances: 3, manyAccounts: false, leases: false },
  'switchyard-pg3-many': { instances: 3, manyAccounts: true },
  // The same as switchyard-pg3 with per-instance balance leases (docs/leases.md).
  'switchyard-pg3-leases': { instances: 3, manyAccounts: false, leases: true },
};
/** Chat completions answered whole (json) or streamed, and batches of embeddings (`EMBEDDING_BATCH` inputs a request). */
export type Mode = 'json' | 'stream' | 'embeddings';
export const ALL_MODES: Mode[] = ['json', 'stream', 'embeddings'];

export interface BenchmarkOptions {
  /** The repository root. */
  root: string;
  targets: TargetName[];
  /** Non-streaming (json) and/or streaming (stream) chat completions. */
  modes: Mode[];
  concurrency: number;
  /** Measured non-streaming requests per target. */
  requests: number;
  /** Measured streaming requests per target. */
  streamRequests: number;
  /** Measured embeddings requests (of `EMBEDDING_BATCH` inputs) per target; default 2,000. */
  embeddingRequests?: number;
  /** Unmeasured requests before each loaded phase. */
  warmupRequests: number;
  /** Requests at concurrency 1 per target and mode, for latency without queueing; 0 skips. */
  probeRequests: number;
  /** Upper bound of each measured phase; it stops early rather than run longer. */
  maxPhaseSeconds: number;
  /**
   * Times every target is measured, in turn (all targets, then all again): the reported phase of
   * each target and mode is its median-CPU round, and each ratio the median of the rounds' ratios.
   */
  rounds?: number;
  /** How long to wait at most for a quiet machine before each target (default 30 s; 0 does not wait, as in tests). */
  quietWaitMs?: number;
  simulator: SimulatorSettings;
  /** Switchyard's LOG_LEVEL (info is what an operator runs). */
  logLevel: string;
  /** PostgreSQL and Redis of the scale-out targets; without both they are reported unavailable. */
  databaseUrl?: string | null;
  redisUrl?: string | null;
  /** After measuring, run Switchyard once more under node --cpu-prof and summarize. */
  profile: boolean;
  /** Where a profile is kept (its summary goes into the result either way). */
  profileDirectory?: string;
  log?: (line: string) => void;
}

export interface PhaseResult {
  target: TargetName;
  mode: Mode;
  concurrency: number;
  completed: number;
  errors: number;
  firstError: string | null;
  durationSeconds: number;
  throughput: number;
  latencyMs: LatencySummary;
  firstByteMs: LatencySummary | null;
  /** p50/p99 latency minus direct's at the same concurrency; null without a direct run. */
  addedLatencyMs: { p50: number; p99: number } | null;
  /**
   * Latency at concurrency 1 (no queueing); added to direct's (what the hop costs), and over the
   * minimal proxy's (the floor: what the hop costs beyond the least a Node proxy does). With
   * several rounds, `addedLatencyMs` and `overFloorMs` are the medians of the rounds' own.
   */
  probe: {
    completed: number;
    latencyMs: { p50: number; p99: number };
    addedLatencyMs: { p50: number; p99: number } | null;
    overFloorMs: { p50: number; p99: number } | null;
  } | null;
  /** SSE events per streamed answer (without [DONE]). */
  chunksPerRequest: number | null;
  proxy: { cpuMicrosPerRequest: number; cpuMicrosPerChunk: number | null; rssMb: number; peakRssMb: number } | null;
  upstreamCpuMicrosPerRequest: number | null;
  clientCpuMicrosPerRequest: number;
  /**
   * Scale-out targets whose database and Redis run on this machine: the CPU of every `postgres`
   * and every `redis-server` process during the measured requests, per request. They share the
   * cores with the gateway, so this is the rest of what one request costs the machine (other
   * clients of the same servers count too). Null otherwise.
   */
  serverCpuMicrosPerRequest: { postgres: number; redis: number } | null;
}

export type TargetStatus = { status: 'measured' } | { status: 'unavailable'; reason: string } | { status: 'skipped' };

export interface BenchmarkResult {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  machine: { node: string; platform: string; arch: string; cpus: number; cpuModel: string; clockTicksPerSecond: number; loadAverageAtStart: number };
  /** The Switchyard code measured: HEAD, and how many files under src/ differ from it. */
  source: { commit: string | null; changedSourceFiles: number | null };
  settings: Omit<BenchmarkOptions, 'root' | 'log' | 'profileDirectory'>;
  targets: Record<TargetName, TargetStatus>;
  phases: PhaseResult[];
  /** Switchyard's proxy CPU per request as a multiple of another target's. */
  cpuRatios: Record<
    Mode,
    {
      switchyardVsMinimal: number | null;
      switchyardVsPortkey: number | null;
      /** Native pass-through's CPU per request over translation's (Chat → openai; Messages → anthropic). */
      /** Switchyard with OpenTelemetry tracing on (exporting to a local OTLP sink) over without. */
      tracedVsUntraced?: number | null;
      chatPassThroughVsTranslated?: number | null;
      messagesPassThroughVsTranslated?: number | null;
      /** A response-cache hit's CPU per request over the minimal proxy's (the floor of answering at all). */
      cacheHitVsMinimal?: number | null;
    }
  >;
  /** Throughput of each scale-out target as a multiple of Switchyard on SQLite's, per mode. */
  scaleOutThroughputVsSqlite: Record<Mode, Partial<Record<ScaleOutTargetName, number>>>;
  /** What the traced target exported to the bench's OTLP sink (summed over rounds): proof the spans left the gateway. */
  traces?: { exports: number; bytes: number };
  /** The books of each scale-out target after its load: every sum equal, nothing overspent or held. */
  books: Partial<Record<ScaleOutTargetName, BooksCheck>>;
  /** With several rounds: each round's ratios, of which the ones above are the medians. */
  rounds?: Array<{ cpuRatios: BenchmarkResult['cpuRatios']; scaleOutThroughputVsSqlite: BenchmarkResult['scaleOutThroughputVsSqlite'] }>;
  profile: ProfileSummary | null;
}

const PROFILE_NAME = 'switchyard.cpuprofile';
const PROFILABLE_TARGETS: readonly TargetName[] = ['switchyard', 'switchyard-pg', 'switchyard-pg-many'];
const PROMPT = 'Please write a short friendly greeting for the load benchmark';
/** Inputs per embeddings request: a typical retrieval indexing batch. */
export const EMBEDDING_BATCH = 64;

export function requestBody(model: string, mode: Mode, style: 'chat' | 'messages'): string {
  if (mode === 'embeddings') {
    // The official SDKs' default format: base64 float32.
    const input = Array.from({ length: EMBEDDING_BATCH }, (_, index) => `Passage ${index} of the load benchmark: a short paragraph to index for retrieval.`);
    return JSON.stringify({ model, input, encoding_format: 'base64' });
  }
  if (style === 'messages') {
    const body: Record<string, unknown> = { model, max_tokens: 256, messages: [{ role: 'user', content: PROMPT }] };
    if (mode === 'stream') body.stream = true;
    return JSON.stringify(body);
  }
  const body: Record<string, unknown> = { model, messages: [{ role: 'user', content: PROMPT }] };
  if (mode === 'stream') Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return JSON.stringify(body);
}

function requestsOf(options: BenchmarkOptions, mode: Mode): number {
  return mode === 'json' ? options.requests : mode === 'stream' ? options.streamRequests : (options.embeddingRequests ?? 2000);
}

function loadJob(target: RunningTarget, mode: Mode, concurrency: number, warmup: number, requests: number, maxPhaseSeconds: number): LoadJob {
  return {
    origin: target.origin,
    origins: target.origins,
    headerSets: target.headerSets,
    path: mode === 'embeddings' ? target.embeddings!.path : target.path,
    headers: target.headers,
    body: requestBody(mode === 'embeddings' ? target.embeddings!.model : target.model, mode, target.style ?? 'chat'),
    style: mode === 'embeddings' ? 'embeddings' : (target.style ?? 'chat'),
    stream: mode === 'stream',
    concurrency,
    warmupRequests: warmup,
    requests,
    maxDurationMs: maxPhaseSeconds * 1000,
  };
}

function toPhaseResult(target: TargetName, mode: Mode, concurrency: number, measured: PhaseMeasurement, probe: PhaseMeasurement | null): PhaseResult {
  const load = measured.load;
  const handled = load.completed + load.errors;
  const chunks = load.eventsPerRequest;
  const cpuPerRequest = measured.proxyCpuMicros === null || handled === 0 ? null : measured.proxyCpuMicros / handled;
  return {
    target,
    mode,
    concurrency,
    completed: load.completed,
    errors: load.errors,
    firstError: load.firstError,
    durationSeconds: round(load.durationMs / 1000, 2),
    throughput: round(load.throughput, 1),
    latencyMs: roundSummary(load.latencyMs),
    firstByteMs: load.firstByteMs && roundSummary(load.firstByteMs),
    addedLatencyMs: null,
    probe: probe && {
      completed: probe.load.completed,
      latencyMs: { p50: round(probe.load.latencyMs.p50, 3), p99: round(probe.load.latencyMs.p99, 3) },
      addedLatencyMs: null,
      overFloorMs: null,
    },
    chunksPerRequest: chunks === null ? null : round(chunks, 2),
    proxy:
      cpuPerRequest === null || measured.proxyMemory === null
        ? null
        : {
            cpuMicrosPerRequest: Math.round(cpuPerRequest),
            cpuMicrosPerChunk: chunks ? round(cpuPerRequest / chunks, 1) : null,
            rssMb: measured.proxyMemory.rssMb,
            peakRssMb: measured.proxyMemory.peakRssMb,
          },
    upstreamCpuMicrosPerRequest: measured.upstreamCpuMicros === null || handled === 0 ? null : Math.round(measured.upstreamCpuMicros / handled),
    clientCpuMicrosPerRequest: Math.round(load.clientCpuMicrosPerRequest),
    serverCpuMicrosPerRequest:
      measured.serverCpuMicros === null || handled === 0
        ? null
        : { postgres: Math.round(measured.serverCpuMicros.postgres / handled), redis: Math.round(measured.serverCpuMicros.redis / handled) },
  };
}

function roundSummary(summary: LatencySummary): LatencySummary {
  return { p50: round(summary.p50, 3), p90: round(summary.p90, 3), p99: round(summary.p99, 3), max: round(summary.max, 3), mean: round(summary.mean, 3) };
}

export function readSource(root: string): BenchmarkResult['source'] {
  const git = (args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const changed = git(['status', '--porcelain', '--', 'src']).split('\n').filter((line) => line.trim() !== '').length;
    return { commit: git(['rev-parse', 'HEAD']).trim(), changedSourceFiles: changed };
  } catch {
    return { commit: null, changedSourceFiles: null };
  }
}

/** Fills in latency added to direct's, and Switchyard's CPU ratios. */
function compare(phases: PhaseResult[]): BenchmarkResult['cpuRatios'] {
  const find = (target: TargetName, mode: Mode) => phases.find((phase) => phase.target === target && phase.mode === mode);
  const ratios = {} as BenchmarkResult['cpuRatios'];
  for (const mode of ALL_MODES) {
    const direct = find('direct', mode);
    for (const phase of phases) {
      if (phase.mode !== mode || !direct || phase.target === 'direct' || phase.completed === 0) continue;
      phase.addedLatencyMs = {
        p50: round(phase.latencyMs.p50 - direct.latencyMs.p50, 3),
        p99: round(phase.latencyMs.p99 - direct.latencyMs.p99, 3),
      };
      if (phase.probe && direct.probe) phase.probe.addedLatencyMs = latencyOver(phase.probe.latencyMs, direct.probe.latencyMs);
    }
    const floor = find('minimal', mode);
    for (const phase of phases) {
      if (phase.mode !== mode || !floor?.probe || !phase.probe || phase.target === 'direct' || phase.target === 'minimal' || phase.completed === 0) continue;
      phase.probe.overFloorMs = latencyOver(phase.probe.latencyMs, floor.probe.latencyMs);
    }
    const cpu = (target: TargetName) => {
      const phase = find(target, mode);
      return phase && phase.errors === 0 ? phase.proxy?.cpuMicrosPerRequest ?? null : null;
    };
    const ratio = (over: number | null, under: number | null) => (over === null || under === null || under === 0 ? null : round(over / under, 2));
    ratios[mode] = {
      switchyardVsMinimal: ratio(cpu('switchyard'), cpu('minimal')),
      switchyardVsPortkey: ratio(cpu('switchyard'), cpu('portkey')),
      tracedVsUntraced: ratio(cpu('switchyard-traced'), cpu('switchyard')),
      chatPassThroughVsTranslated: ratio(cpu('switchyard'), cpu('switchyard-translated')),
      messagesPassThroughVsTranslated: ratio(cpu('switchyard-messages'), cpu('switchyard-messages-translated')),
      cacheHitVsMinimal: ratio(cpu('switchyard-cache'), cpu('minimal')),
    };
  }
  return ratios;
}

function latencyOver(latency: { p50: number; p99: number }, base: { p50: number; p99: number }): { p50: number; p99: number } {
  return { p50: round(latency.p50 - base.p50, 3), p99: round(latency.p99 - base.p99, 3) };
}

/**
 * With several rounds, the row of each target is its median-CPU round; its figures at
 * concurrency 1 become the medians of every round's own (each against direct and the floor of
 * the same round), so that one slow probe does not decide them.
 */
function medianProbeLatencies(phases: PhaseResult[], rounds: PhaseResult[][]): void {
  if (rounds.length <= 1) return;
  for (const phase of phases) {
    if (!phase.probe) continue;
    const same = rounds.map((one) => one.find((other) => other.target === phase.target && other.mode === phase.mode)?.probe).filter((probe) => probe != null);
    for (const field of ['addedLatencyMs', 'overFloorMs'] as const) {
      const values = same.map((probe) => probe[field]).filter((value) => value !== null);
      phase.probe[field] = values.length === 0 ? null : { p50: round(median(values.map((value) => value.p50)), 3), p99: round(median(values.map((value) => value.p99)), 3) };
    }
  }
}

/** Each scale-out target's throughput over Switchyard on SQLite's, measured in the same run. */
function compareThroughput(phases: PhaseResult[]): BenchmarkResult['scaleOutThroughputVsSqlite'] {
  const ratios: BenchmarkResult['scaleOutThroughputVsSqlite'] = { json: {}, stream: {}, embeddings: {} };
  for (const mode of ALL_MODES) {
    const sqlite = phases.find((phase) => phase.target === 'switchyard' && phase.mode === mode);
    if (!sqlite || sqlite.throughput === 0) continue;
    for (const phase of phases) {
      if (phase.mode !== mode || !SCALE_OUT_TARGETS.includes(phase.target as ScaleOutTargetName)) continue;
      ratios[mode][phase.target as ScaleOutTargetName] = round(phase.throughput / sqlite.throughput, 2);
    }
  }
  return ratios;
}

/** Spans exported by traced targets, over the whole run. */
const traceExports = { exports: 0, bytes: 0 };

async function startTarget(name: TargetName, options: BenchmarkOptions, simulator: RunningSimulator, directory: string, nodeFlags?: string[]): Promise<RunningTarget & { checkBooks?(): Promise<BooksCheck> }> {
  switch (name) {
    case 'switchyard-traced': {
      // Tracing on, exporting over OTLP/HTTP to a sink in this (the driver's) process: the
      // gateway pays for building, batching, encoding and sending the spans, as in production.
      const sink = await startTraceSink();
      const scratch = await mkdtemp(join(directory, `${name}-`));
      const target = await startSwitchyardTarget(options.root, simulator, {
        directory: scratch,
        logLevel: options.logLevel,
        nodeFlags,
        name,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
      });
      return {
        ...target,
        async stop() {
          await target.stop();
          const received = sink.received();
          traceExports.exports += received.exports;
          traceExports.bytes += received.bytes;
          await sink.close();
        },
      };
    }
    case 'switchyard-pg':
    case 'switchyard-pg-many':
    case 'switchyard-pg3':
    case 'switchyard-pg3-many':
    case 'switchyard-pg3-leases': {
      const shape = SCALE_OUT_SHAPES[name];
      const scratch = await mkdtemp(join(directory, `${name}-`));
      return startSwitchyardScaleOut(options.root, name, simulator, {
        databaseUrl: options.databaseUrl!,
        redisUrl: options.redisUrl!,
        instances: shape.instances,
        leases: shape.leases,
        accounts: shape.manyAccounts ? options.concurrency : 1,
        directory: scratch,
        logLevel: options.logLevel,
        nodeFlags,
      });
    }
    case 'switchyard-cache': {
      const scratch = await mkdtemp(join(directory, `${name}-`));
      return startSwitchyardTarget(options.root, simulator, { directory: scratch, logLevel: options.logLevel, nodeFlags, name, cache: true });
    }
    case 'direct':
      return directTarget(simulator);
    case 'minimal':
      return startMinimalProxyTarget(options.root, simulator);
    case 'switchyard': {
      const scratch = await mkdtemp(join(directory, 'switchyard-'));
      return startSwitchyardTarget(options.root, simulator, { directory: scratch, logLevel: options.logLevel, nodeFlags });
    }
    case 'switchyard-translated':
    case 'switchyard-messages':
    case 'switchyard-messages-translated': {
      const scratch = await mkdtemp(join(directory, `${name}-`));
      return startSwitchyardTarget(options.root, simulator, {
        directory: scratch,
        logLevel: options.logLevel,
        nodeFlags,
        name,
        style: name === 'switchyard-translated' ? 'chat' : 'messages',
        env: name.endsWith('-translated') ? { SWITCHYARD_PASS_THROUGH: '0' } : {},
      });
    }
    case 'portkey':
      return startPortkeyTarget(options.root, simulator, directory);
  }
}

const SERVER_COMMANDS: ServerCommands = { postgres: 'postgres', redis: 'redis-server' };

/** Whether the scale-out targets' PostgreSQL and Redis are on this machine (loopback or a local socket). */
function serversRunHere(options: BenchmarkOptions): boolean {
  const local = (url: string | null | undefined) => {
    if (!url) return false;
    try {
      const { hostname, searchParams } = new URL(url);
      const host = hostname || searchParams.get('host') || '';
      return host === '' || host.startsWith('/') || host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
    } catch {
      return false;
    }
  };
  return local(options.databaseUrl) && local(options.redisUrl);
}

async function measureTarget(target: RunningTarget, options: BenchmarkOptions, simulator: RunningSimulator): Promise<PhaseResult[]> {
  const results: PhaseResult[] = [];
  const timeoutMs = (2 * options.maxPhaseSeconds + 60) * 1000;
  for (const mode of options.modes) {
    if (mode === 'embeddings' && !target.embeddings) continue;
    const requests = requestsOf(options, mode);
    const job = loadJob(target, mode, options.concurrency, options.warmupRequests, requests, options.maxPhaseSeconds);
    const servers = SCALE_OUT_TARGETS.includes(target.name as ScaleOutTargetName) && serversRunHere(options) ? SERVER_COMMANDS : undefined;
    const measured = await runLoadPhase(options.root, job, { proxy: target.pids ?? target.pid, upstream: simulator.pid, servers }, timeoutMs);
    let probe: PhaseMeasurement | null = null;
    if (options.probeRequests > 0 && measured.load.completed > 0) {
      const probeJob = loadJob(target, mode, 1, Math.min(20, options.probeRequests), options.probeRequests, options.maxPhaseSeconds);
      probe = await runLoadPhase(options.root, probeJob, { proxy: null, upstream: simulator.pid }, timeoutMs);
    }
    const result = toPhaseResult(target.name, mode, options.concurrency, measured, probe);
    options.log?.(
      `  ${target.name} ${mode}: ${result.throughput} req/s, p50 ${result.latencyMs.p50} ms, ` +
        `proxy CPU ${result.proxy?.cpuMicrosPerRequest ?? '-'} µs/req, ` +
        (result.serverCpuMicrosPerRequest ? `PostgreSQL ${result.serverCpuMicrosPerRequest.postgres} µs/req, Redis ${result.serverCpuMicrosPerRequest.redis} µs/req, ` : '') +
        `errors ${result.errors}${result.firstError ? ` (${result.firstError})` : ''}`,
    );
    results.push(result);
  }
  return results;
}

/**
 * Runs Switchyard once more under --cpu-prof with the same load and summarizes where CPU goes,
 * counting only the samples of the measured requests (not start-up, not the warm-up).
 */
async function profileSwitchyard(name: TargetName, options: BenchmarkOptions, simulator: RunningSimulator, directory: string): Promise<ProfileSummary | null> {
  const profileDirectory = options.profileDirectory ?? join(directory, 'profile');
  const file = join(profileDirectory, PROFILE_NAME);
  // `--out` names a directory that `writeResults` creates only after the run.
  await mkdir(profileDirectory, { recursive: true });
  await rm(file, { force: true });
  // Every thread writes a profile of its own (the token counter is a worker thread): under one
  // `--cpu-prof-name` the last to exit overwrote the others, and the summary was the worker's.
  // Node's own names end `.<pid>.<thread id>.<sequence>.cpuprofile`; the main thread's id is 0.
  const threads = await mkdtemp(join(directory, 'cpu-profiles-'));
  const target = await startTarget(name, options, simulator, directory, ['--cpu-prof', `--cpu-prof-dir=${threads}`]);
  const windows: TimeWindow[] = [];
  try {
    for (const mode of options.modes) {
      if (mode === 'embeddings' && !target.embeddings) continue;
      const requests = requestsOf(options, mode);
      const job = loadJob(target, mode, options.concurrency, options.warmupRequests, requests, options.maxPhaseSeconds);
      windows.push((await runLoadPhase(options.root, job, { proxy: target.pid, upstream: simulator.pid }, (2 * options.maxPhaseSeconds + 60) * 1000)).window);
    }
  } finally {
    await target.stop();
  }
  const main = (await readdir(threads)).find((written) => /\.\d+\.0\.\d+\.cpuprofile$/.test(written));
  if (main) await rename(join(threads, main), file);
  await rm(threads, { recursive: true, force: true });
  return existsSync(file) ? summarizeCpuProfile(file, options.root, 15, windows) : null;
}

/**
 * One benchmark run: the simulator in its own process, then each target in turn (only one proxy
 * runs at a time), non-streaming and streaming load at fixed concurrency, each proxy's CPU from
 * /proc. Every child process is stopped before this returns or throws.
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkResult> {
  const log = options.log ?? (() => {});
  const started = new Date();
  // Other work on the machine moves req/s (not much CPU per request); recorded so runs can be judged.
  const loadAverageAtStart = round(loadavg()[0], 2);
  const directory = await createScratchDirectory('switchyard-bench-');
  const targets = {} as Record<TargetName, TargetStatus>;
  for (const name of ALL_TARGETS) targets[name] = { status: 'skipped' };
  const rounds = options.rounds ?? 1;
  const roundPhases: PhaseResult[][] = [];
  let profile: ProfileSummary | null = null;
  const books: BenchmarkResult['books'] = {};
  try {
    const simulator = await startSimulatorProcess(options.root, options.simulator);
    log(`simulator at ${simulator.url} (pid ${simulator.pid})`);
    for (let round = 1; round <= rounds; round += 1) {
      if (rounds > 1) log(`round ${round} of ${rounds}`);
      const phases: PhaseResult[] = [];
      roundPhases.push(phases);
      for (const name of options.targets) {
        if (targets[name].status === 'unavailable') continue;
        if (SCALE_OUT_TARGETS.includes(name as ScaleOutTargetName) && (!options.databaseUrl || !options.redisUrl)) {
          targets[name] = { status: 'unavailable', reason: 'needs --database-url and --redis-url (or BENCH_DATABASE_URL and BENCH_REDIS_URL)' };
          log(`${name}: unavailable, ${targets[name].status === 'unavailable' ? 'no PostgreSQL/Redis given' : ''}`);
          continue;
        }
        if (name === 'portkey') {
          const found = portkeyEntry(options.root);
          if ('reason' in found) {
            targets.portkey = { status: 'unavailable', reason: found.reason };
            log(`portkey: unavailable, ${found.reason}`);
            continue;
          }
        }
        let target: RunningTarget & { checkBooks?(): Promise<BooksCheck> };
        try {
          target = await startTarget(name, options, simulator, directory);
        } catch (error) {
          // A peer that does not start here is reported, never faked; our own targets must start.
          if (name !== 'portkey') throw error;
          targets.portkey = { status: 'unavailable', reason: `did not start: ${(error as Error).message.split('\n')[0]}` };
          log(`portkey: ${targets.portkey.reason}`);
          continue;
        }
        const quiet = (options.quietWaitMs ?? 30_000) > 0 ? await waitForQuietMachine(0.15, options.quietWaitMs) : { waitedMs: 0, busy: null };
        const settled = quiet.waitedMs > 1500 ? `, after waiting ${Math.round(quiet.waitedMs / 1000)} s for a quiet machine (busy ${quiet.busy === null ? '?' : Math.round(quiet.busy * 100)} %)` : '';
        log(`${name}: measuring at ${target.origin}${target.pid === null ? '' : ` (pid ${target.pid})`}${settled}`);
        try {
          const measured = await measureTarget(target, options, simulator);
          phases.push(...measured);
          const broken = measured.find((phase) => phase.completed === 0);
          targets[name] = broken ? { status: 'unavailable', reason: `${broken.mode} requests failed: ${broken.firstError}` } : { status: 'measured' };
          if (target.checkBooks) {
            const checked = await target.checkBooks();
            // A round whose books were not exact stays on record, whatever the other rounds found.
            if (books[name as ScaleOutTargetName]?.exact !== false) books[name as ScaleOutTargetName] = checked;
            log(`  ${name} books: ${checked.exact ? 'exact' : 'NOT EXACT'} (charges ${checked.charges}, request costs ${checked.requestCosts}, usage ${checked.totalUsage}, open reservations ${checked.openReservations}; while running: ${checked.liveLeases ?? 0} lease rows, rows = reserved ${checked.liveReservedAgrees ?? '-'}; killed at stop ${checked.killedInstances ?? 0})`);
          }
        } finally {
          await target.stop();
        }
      }
    }
    // One process to profile: the first single-instance Switchyard target of the run.
    const profiled = options.targets.find((name) => PROFILABLE_TARGETS.includes(name));
    if (options.profile && profiled) {
      log(`${profiled}: profiling (node --cpu-prof), not measured`);
      profile = await profileSwitchyard(profiled, options, simulator, directory);
    }
    await simulator.stop();
  } finally {
    await cleanUp();
  }
  const finished = new Date();
  const { root: _root, log: _log, profileDirectory: _profileDirectory, ...settings } = options;
  const perRound = roundPhases.map((phases) => ({ cpuRatios: compare(phases), scaleOutThroughputVsSqlite: compareThroughput(phases) }));
  const phases = medianPhases(roundPhases);
  compare(phases);
  medianProbeLatencies(phases, roundPhases);
  return {
    schema: 1,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationSeconds: round((finished.getTime() - started.getTime()) / 1000, 1),
    machine: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      clockTicksPerSecond: clockTicksPerSecond(),
      loadAverageAtStart,
    },
    source: readSource(options.root),
    settings,
    targets,
    phases,
    cpuRatios: rounds > 1 ? medianRatios(perRound.map((one) => one.cpuRatios)) : compare(phases),
    scaleOutThroughputVsSqlite: rounds > 1 ? medianRatios(perRound.map((one) => one.scaleOutThroughputVsSqlite)) : compareThroughput(phases),
    books,
    ...(options.targets.includes('switchyard-traced') && { traces: { ...traceExports } }),
    ...(rounds > 1 && { rounds: perRound }),
    profile,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Each target and mode's median round: by CPU per request, or by throughput where no CPU is read. */
function medianPhases(rounds: PhaseResult[][]): PhaseResult[] {
  if (rounds.length <= 1) return rounds[0] ?? [];
  return rounds[0].map((first) => {
    const same = rounds.map((phases) => phases.find((phase) => phase.target === first.target && phase.mode === first.mode)).filter((phase): phase is PhaseResult => phase !== undefined);
    const measure = (phase: PhaseResult) => phase.proxy?.cpuMicrosPerRequest ?? phase.throughput;
    const sorted = [...same].sort((a, b) => measure(a) - measure(b));
    const chosen = sorted[(sorted.length - 1) >> 1];
    // A copy of the probe too: the medians of the rounds' probes are written into it.
    return { ...chosen, probe: chosen.probe && { ...chosen.probe } };
  });
}

/** The median of each ratio over the rounds (a ratio missing in a round is left out of it). */
function medianRatios<T extends Record<Mode, Record<string, number | null | undefined>>>(rounds: T[]): T {
  const result = {} as Record<Mode, Record<string, number | null>>;
  for (const mode of ALL_MODES) {
    result[mode] = {};
    const names = new Set(rounds.flatMap((one) => Object.keys(one[mode])));
    for (const name of names) {
      const values = rounds.map((one) => one[mode][name]).filter((value): value is number => typeof value === 'number');
      result[mode][name] = values.length === 0 ? null : round(median(values), 2);
    }
  }
  return result as T;
}
