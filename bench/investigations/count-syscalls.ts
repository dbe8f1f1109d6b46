// System calls per request of `switchyard serve`, counted by `strace -c -f` attached after the
// warm-up: like instruction counts, the number does not move with the machine's load, and each
// syscall on loopback (a write that wakes the peer, a read that finds nothing) is kernel time
// that callgrind does not see.
//
//   node --import tsx bench/investigations/count-syscalls.ts [--root DIR] [--mode json|stream] [--requests N] [--warmup N]
//        [--database-url URL --redis-url URL]
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startSwitchyardScaleOut } from '../start-scale-out.js';
import { startSimulatorProcess, startSwitchyardTarget } from '../start-targets.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '.' },
    mode: { type: 'string', default: 'json' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '8' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL },
    'redis-url': { type: 'string', default: process.env.BENCH_REDIS_URL },
  },
});
const root = resolve(values.root!);
const stream = values.mode === 'stream';
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const scratch = await mkdtemp(join(tmpdir(), 'switchyard-strace-'));
const simulator = await startSimulatorProcess(resolve('.'), { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 });
try {
  const databaseUrl = values['database-url'];
  const redisUrl = values['redis-url'];
  const target =
    databaseUrl && redisUrl
      ? await startSwitchyardScaleOut(root, 'switchyard-pg', simulator, { databaseUrl, redisUrl, instances: 1, accounts: 1, directory: scratch, logLevel: 'info' })
      : await startSwitchyardTarget(root, simulator, { directory: scratch, logLevel: 'info' });
  try {
    const body: Record<string, unknown> = { model: target.model, messages: [{ role: 'user', content: 'Say something about gateways.' }] };
    if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    const pool = new Pool(target.origin, { connections: concurrency });
    const send = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
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
    const pid = target.pids?.[0] ?? target.pid!;
    const output = join(scratch, 'strace.txt');
    const strace = spawn('strace', ['-c', '-f', '-o', output, '-p', String(pid)], { stdio: 'ignore' });
    await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
    await send(requests);
    strace.kill('SIGINT');
    await new Promise((resolveExit) => strace.once('exit', resolveExit));
    await pool.close();
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(output, 'utf8')).split('\n');
    const perRequest: Record<string, number> = {};
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // % time, seconds, usecs/call, calls, [errors], syscall
      if (fields.length < 5 || !/^\d/.test(fields[0])) continue;
      const name = fields[fields.length - 1];
      const calls = Number(fields[3]);
      if (name === 'total') perRequest.total = Math.round((calls / requests) * 100) / 100;
      else if (calls / requests >= 0.05) perRequest[name] = Math.round((calls / requests) * 100) / 100;
    }
    process.stdout.write(`${JSON.stringify({ root, database: databaseUrl && redisUrl ? 'postgres' : 'sqlite', mode: values.mode, requests, syscallsPerRequest: perRequest })}\n`);
  } finally {
    await target.stop();
  }
} finally {
  await simulator.stop();
  await rm(scratch, { recursive: true, force: true });
}
