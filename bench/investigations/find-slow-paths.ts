// Where V8 leaves its fast paths on the request path: the CPU samples of `switchyard serve` under
// load that are inside a V8 runtime function (`Runtime_*`: a property defined or read through a
// cache miss, `Object.entries` or a literal with a computed key off its fast path, a map made per
// object…), grouped by that function and the JavaScript function that called it.
//
//   node --import tsx bench/investigations/find-slow-paths.ts [--root DIR] [--mode json|stream] [--style chat|messages] [--requests N] [--top N] [--frames REGEXP]
//
// --frames picks other frames than `Runtime_\w+`, e.g. `Builtins_\w*Megamorphic\w*` for the property
// reads and writes whose sites have seen too many object shapes to cache.
//
// Starts the simulator and `switchyard serve` from DIR (a built work tree, default this one) with
// `--perf-basic-prof-only-functions` (so that perf can name JIT-compiled functions), warms it up,
// then samples it with `perf record -g` during the measured requests and reads the stacks with
// `perf script`. Needs Linux `perf` (Debian: linux-perf). A caller's line is that of the compiled
// function, which includes what V8 inlined into it: read the functions it calls too.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import type { LoadJob } from '../load-generator.js';
import { runLoadPhase } from '../run-load-phase.js';
import { requestBody } from '../run-benchmark.js';
import { startSimulatorProcess, startSwitchyardTarget } from '../start-targets.js';

const execFileAsync = promisify(execFile);
const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    mode: { type: 'string', default: 'json' },
    /** The API style of the requests: Chat Completions, or Messages (to the simulator's Anthropic model). */
    style: { type: 'string', default: 'chat' },
    requests: { type: 'string', default: '20000' },
    top: { type: 'string', default: '25' },
    frames: { type: 'string', default: 'Runtime_\\w+' },
  },
});
const root = resolve(values.root!);
const stream = values.mode === 'stream';
const style = values.style === 'messages' ? 'messages' : 'chat';
const framePattern = new RegExp(values.frames!);

try {
  await execFileAsync('perf', ['--version']);
} catch {
  console.error('find-slow-paths needs Linux perf on the PATH (Debian: apt-get install linux-perf)');
  process.exit(2);
}

const scratch = await mkdtemp(join(tmpdir(), 'switchyard-slow-paths-'));
const simulator = await startSimulatorProcess(root, { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
const target = await startSwitchyardTarget(root, simulator, {
  directory: scratch,
  logLevel: 'info',
  style,
  nodeFlags: ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'],
});
try {
  const job: LoadJob = { origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.model, stream ? 'stream' : 'json', style), style, stream, concurrency: 32, warmupRequests: 1000, requests: 5000, maxDurationMs: 15_000 };
  const pids = { proxy: target.pid!, upstream: simulator.pid };
  // Warm until V8 has optimized the request path: the samples are of compiled code.
  await runLoadPhase(root, job, pids, 120_000);
  const data = join(scratch, 'perf.data');
  const recorder = spawn('perf', ['record', '-g', '-F', '2000', '-p', String(target.pid), '-o', data], { stdio: 'ignore' });
  await new Promise((done) => setTimeout(done, 300));
  const measured = await runLoadPhase(root, { ...job, warmupRequests: 0, requests: Number(values.requests), maxDurationMs: 30_000 }, pids, 120_000);
  recorder.kill('SIGINT');
  await new Promise((done) => recorder.once('exit', done));
  const { stdout } = await execFileAsync('perf', ['script', '-i', data], { maxBuffer: 1 << 30 });
  const { samples, slow, byCaller } = groupRuntimeSamples(stdout);
  console.log(`${style} ${values.mode}: ${measured.load.completed} requests, ${samples} samples, ${slow} (${percent(slow, samples)}) in ${values.frames}`);
  for (const [key, count] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
    console.log(`${percent(count, samples).padStart(7)}  ${key}`);
  }
} finally {
  await target.stop();
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
  await rm(`/tmp/perf-${target.pid}.map`, { force: true });
}

/** Per sample (a block of `perf script`, innermost frame first): its outermost runtime function and the JavaScript frame that called it. */
function groupRuntimeSamples(script: string): { samples: number; slow: number; byCaller: Map<string, number> } {
  const byCaller = new Map<string, number>();
  let samples = 0;
  let slow = 0;
  for (const block of script.split('\n\n')) {
    const frames = block.trim().split('\n').slice(1);
    if (frames.length === 0) continue;
    samples += 1;
    let runtimeAt = -1;
    frames.forEach((frame, index) => {
      if (framePattern.test(frame)) runtimeAt = index;
    });
    if (runtimeAt < 0) continue;
    slow += 1;
    const runtime = framePattern.exec(frames[runtimeAt])![0];
    const caller = frames.slice(runtimeAt + 1).find((frame) => frame.includes('JS:'));
    const name = caller ? caller.trim().replace(/^[0-9a-f]+\s+/, '').replace(/ \(.*$/, '').replace(`file://${root}/`, '') : '(no JavaScript caller)';
    const key = `${runtime}  <-  ${name}`;
    byCaller.set(key, (byCaller.get(key) ?? 0) + 1);
  }
  return { samples, slow, byCaller };
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / Math.max(whole, 1)).toFixed(2)} %`;
}
