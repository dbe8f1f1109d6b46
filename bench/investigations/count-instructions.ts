// Instructions per request of `switchyard serve`, counted by valgrind's callgrind: unlike CPU
// time, the count does not move with whatever else the machine is doing, so two builds can be
// compared on a busy machine (user-space instructions only: the kernel's share, socket writes
// and all, is not in it).
//
//   node --import tsx bench/investigations/count-instructions.ts [--root DIR] [--mode json|stream] [--requests N] [--warmup N] [--keep FILE]
//        [--database-url URL --redis-url URL]
//
// Starts the simulator, and `switchyard serve` from DIR (a built work tree, default this one)
// under `valgrind --tool=callgrind` with instrumentation off; sends the warm-up requests, turns
// instrumentation on (callgrind_control), sends the measured requests at concurrency 8, dumps
// the counts and prints the instructions per request (all threads: GC and JIT included). The
// warm-up is long (8,000) because V8 still optimizes functions for the first few thousand
// requests; with 500, TurboFan's own work was half of what was counted. With --database-url and
// --redis-url (or BENCH_DATABASE_URL / BENCH_REDIS_URL) the server is the benchmark's
// switchyard-pg target instead (one instance on PostgreSQL + Redis, one hot account, leases on,
// a schema of its own): the gateway's side of the PostgreSQL path, counted the same way.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Pool } from 'undici';
import { startSwitchyardScaleOut } from '../start-scale-out.js';
import { startSimulatorProcess, startSwitchyardTarget } from '../start-targets.js';

const execFileAsync = promisify(execFile);
// valgrind names its control pipes after $HOST, which `serve` has set to its listen address.
const controlOptions = { env: { ...process.env, HOST: '127.0.0.1' } };
const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    mode: { type: 'string', default: 'json' },
    requests: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '8000' },
    /** Keep the callgrind dump here (for callgrind_annotate). */
    keep: { type: 'string' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL },
    'redis-url': { type: 'string', default: process.env.BENCH_REDIS_URL },
  },
});
const root = resolve(values.root!);
const stream = values.mode === 'stream';
const requests = Number(values.requests);
const scratch = await mkdtemp(join(tmpdir(), 'switchyard-callgrind-'));
// The gateway under valgrind stalls for seconds at a time (JIT compiles run on the one thread
// valgrind serializes), long enough for the simulator to close an idle upstream connection just
// as the gateway reuses it (a 502 `other side closed`): the simulator keeps them for 10 minutes.
const simulator = await startSimulatorProcess(resolve('.'), { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16, keepAliveMs: 600_000 });
try {
  const launcher = ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(scratch, 'callgrind.out.%p')}`];
  const databaseUrl = values['database-url'];
  const redisUrl = values['redis-url'];
  const target =
    databaseUrl && redisUrl
      ? await startSwitchyardScaleOut(root, 'switchyard-pg', simulator, { databaseUrl, redisUrl, instances: 1, accounts: 1, directory: scratch, logLevel: 'info', launcher, startTimeoutMs: 600_000 })
      : await startSwitchyardTarget(root, simulator, { directory: scratch, logLevel: 'info', launcher, startTimeoutMs: 600_000 });
  try {
    const body: Record<string, unknown> = { model: target.model, messages: [{ role: 'user', content: 'Say something about gateways.' }] };
    if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    const pool = new Pool(target.origin, { connections: 8 });
    const send = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) {
            next += 1;
            const response = await pool.request({ method: 'POST', path: target.path, headers: target.headers, body: JSON.stringify(body) });
            const text = await response.body.text();
            if (response.statusCode !== 200 || (stream && !text.includes('[DONE]'))) throw new Error(`answer ${response.statusCode}: ${text.slice(0, 200)}`);
          }
        }),
      );
    };
    await send(Number(values.warmup));
    await execFileAsync('callgrind_control', ['-i', 'on', String(target.pid)], controlOptions);
    await send(requests);
    await execFileAsync('callgrind_control', ['-d', String(target.pid)], controlOptions);
    // The dump is written as `<out>.<pid>.1` once valgrind next runs the process, which an idle
    // server does not: a GET /health every half second wakes it (a few, against N requests).
    let instructions = 0;
    let dumps: string[] = [];
    for (let attempt = 0; attempt < 120 && instructions === 0; attempt += 1) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 500));
      await (await pool.request({ method: 'GET', path: '/health' })).body.text();
      dumps = (await readdir(scratch)).filter((name) => /^callgrind\.out\.\d+\.\d+$/.test(name));
      for (const name of dumps) {
        const total = /^totals: (\d+)/m.exec(await readFile(join(scratch, name), 'utf8'));
        if (total) instructions += Number(total[1]);
      }
    }
    await pool.close();
    if (values.keep && dumps[0]) await copyFile(join(scratch, dumps[0]), values.keep);
    process.stdout.write(`${JSON.stringify({ root, database: databaseUrl && redisUrl ? 'postgres' : 'sqlite', mode: values.mode, requests, instructionsPerRequest: Math.round(instructions / requests), dumps })}\n`);
  } finally {
    await target.stop();
  }
} finally {
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
