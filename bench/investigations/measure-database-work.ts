// The database and Redis work per request, for the capacity model in docs/deployment.md:
// starts a private PostgreSQL (initdb, fsync on, pg_stat_statements) and a private redis-server,
// runs the scale-out targets of `npm run bench` against them, and reports per request: SQL
// statements (and, for the most frequent, how often PostgreSQL planned each and how long that took:
// a prepared statement planned at every execution shows as plans ≈ calls) and transactions,
// PostgreSQL CPU (postmaster and every backend, from /proc), Redis
// commands and Redis CPU, beside the gateway's own CPU.
//
//   node --import tsx bench/investigations/measure-database-work.ts [--targets switchyard-pg,switchyard-pg3] [--requests N] [--stream-requests N]
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { findFreePort } from '../child-process.js';
import { readCpuMicros, round } from '../process-stats.js';
import { runBenchmark, type Mode } from '../run-benchmark.js';
import type { ScaleOutTargetName } from '../start-targets.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const postgresBin = spawnSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1'], { encoding: 'utf8' }).stdout.trim() || '/usr/lib/postgresql/15/bin';

function asPostgres(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' }) : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

/** A private cluster with the shared one's durability (fsync on) and statement statistics. */
async function startPostgres(): Promise<{ url: string; data: string; stop(): void }> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-capacity-pg-'));
  chmodSync(directory, 0o755);
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(directory, id('-u'), id('-g'));
  }
  const data = join(directory, 'data');
  const port = await findFreePort();
  asPostgres(join(postgresBin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on`;
  asPostgres(join(postgresBin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(directory, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    data,
    stop() {
      asPostgres(join(postgresBin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The postmaster and its children (backends, WAL writer, checkpointer…). */
function postgresPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // the process ended between the listing and the read
    }
  }
  return pids;
}

/**
 * PostgreSQL's CPU over a run. A backend's CPU disappears from /proc when its connection closes
 * (the gateways close their pools when a target stops), so every process is sampled while the
 * run goes on and its last reading counted; a process that started during the run counts from 0.
 * What a backend burns in its last sampling interval is lost (the interval is short against the run).
 */
function samplePostgresCpu(data: string): { stop(): number } {
  const readings = new Map<number, { first: number; last: number }>();
  const read = (initial: boolean) => {
    for (const pid of postgresPids(data)) {
      const micros = readCpuMicros(pid);
      if (micros === null) continue;
      const known = readings.get(pid);
      if (known) known.last = micros;
      else readings.set(pid, { first: initial ? micros : 0, last: micros });
    }
  };
  read(true);
  const timer = setInterval(() => read(false), 100);
  return {
    stop() {
      clearInterval(timer);
      read(false);
      let total = 0;
      for (const { first, last } of readings.values()) total += last - first;
      return total;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      targets: { type: 'string', default: 'switchyard-pg,switchyard-pg3' },
      requests: { type: 'string', default: '5000' },
      'stream-requests': { type: 'string', default: '3000' },
      modes: { type: 'string', default: 'json' },
    },
  });
  const postgres = await startPostgres();
  const redisPort = await findFreePort();
  const redisDirectory = mkdtempSync(join(tmpdir(), 'switchyard-capacity-redis-'));
  // Not through spawnChild: runBenchmark stops every child spawned that way when a target ends.
  const redisChild = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', redisDirectory], { stdio: 'ignore' });
  const stopRedis = () => redisChild.kill('SIGKILL');
  process.once('SIGTERM', () => {
    stopRedis();
    postgres.stop();
    process.exit(1);
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 50 });
  const admin = new pg.Client({ connectionString: postgres.url });
  const report: Array<Record<string, unknown>> = [];
  try {
    await admin.connect();
    await admin.query('create extension if not exists pg_stat_statements');
    await redis.connect();
    for (const target of values.targets.split(',').filter((name) => name !== '' && name !== 'none') as ScaleOutTargetName[]) {
      await admin.query('select pg_stat_statements_reset()');
      await redis.config('RESETSTAT');
      const pgSampler = samplePostgresCpu(postgres.data);
      await admin.query('select pg_stat_reset()');
      const commitsBefore = Number((await admin.query<{ n: string }>(`select xact_commit::text as n from pg_stat_database where datname = 'postgres'`)).rows[0].n);
      const redisBefore = readCpuMicros(redisChild.pid!) ?? 0;
      const result = await runBenchmark({
        root,
        targets: [target],
        modes: values.modes.split(',') as Mode[],
        concurrency: 32,
        requests: Number(values.requests),
        streamRequests: Number(values['stream-requests']),
        warmupRequests: 1000,
        probeRequests: 0,
        maxPhaseSeconds: 30,
        quietWaitMs: 0,
        simulator: { latencyMs: 0, tokensPerSecond: 0, replyTokens: 16 },
        logLevel: 'info',
        databaseUrl: postgres.url,
        redisUrl,
        profile: false,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const pgCpu = pgSampler.stop();
      const redisCpu = (readCpuMicros(redisChild.pid!) ?? 0) - redisBefore;
      // Every request the gateway served in the run: warm-up and measured phases of each mode.
      const phases = result.phases.filter((phase) => phase.target === target);
      const requests = phases.reduce((sum, phase) => sum + phase.completed + phase.errors, 0) + 1000 * phases.length;
      const statements = await admin.query<{ query: string; calls: string; total: string; plans: string; planning: string }>(
        `select query, calls::text as calls, round(total_exec_time::numeric, 1)::text as total, plans::text as plans, round(total_plan_time::numeric, 1)::text as planning
         from pg_stat_statements s where query not ilike '%pg_stat_statements%' order by s.calls desc limit 14`,
      );
      const allCalls = await admin.query<{ calls: string; toplevel: string }>(
        `select coalesce(sum(calls), 0)::text as calls, coalesce(sum(calls) filter (where toplevel), 0)::text as toplevel from pg_stat_statements where query not ilike '%pg_stat_statements%'`,
      );
      const commits = Number((await admin.query<{ n: string }>(`select xact_commit::text as n from pg_stat_database where datname = 'postgres'`)).rows[0].n) - commitsBefore;
      const commandStats = await redis.info('commandstats');
      const redisCalls = [...commandStats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].map(([, name, calls]) => ({ name, calls: Number(calls) }));
      const redisTotal = redisCalls.filter((one) => !['config', 'info'].includes(one.name)).reduce((sum, one) => sum + one.calls, 0);
      const gatewayCpu = phases.map((phase) => ({ mode: phase.mode, gatewayCpuMicrosPerRequest: phase.proxy?.cpuMicrosPerRequest, throughput: phase.throughput }));
      const entry = {
        target,
        requests,
        loadAverage: round(loadavg()[0], 2),
        phases: gatewayCpu,
        books: result.books[target]?.exact,
        postgres: {
          cpuMicrosPerRequest: Math.round(pgCpu / requests),
          // Round trips (statements the gateways sent) and statements run, nested ones included.
          topLevelStatementsPerRequest: round(Number(allCalls.rows[0].toplevel) / requests, 2),
          statementsPerRequest: round(Number(allCalls.rows[0].calls) / requests, 2),
          commitsPerRequest: round(commits / requests, 3),
          top: statements.rows.map((row) => ({ perRequest: round(Number(row.calls) / requests, 3), totalMs: Number(row.total), plans: Number(row.plans), planningMs: Number(row.planning), query: row.query.replace(/\s+/g, ' ').slice(0, 140) })),
        },
        redis: {
          cpuMicrosPerRequest: Math.round(redisCpu / requests),
          commandsPerRequest: round(redisTotal / requests, 2),
          commands: redisCalls.map((one) => ({ ...one, perRequest: round(one.calls / requests, 3) })),
        },
      };
      report.push(entry);
      process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
    }
    report.push(await measureRateLimitCalls(redis, redisChild.pid!));
  } finally {
    await admin.end().catch(() => undefined);
    redis.disconnect();
    stopRedis();
    rmSync(redisDirectory, { recursive: true, force: true });
    postgres.stop();
  }
}

/**
 * The bench's config has no per-key rate limit (requests_per_minute: 0), so its requests send
 * nothing to Redis. With a limit, each paid request runs one EVALSHA of the counter script
 * (src/store/counters.ts); this measures that call's Redis CPU: 20,000 calls, 32 in flight.
 */
async function measureRateLimitCalls(redis: Redis, pid: number): Promise<Record<string, unknown>> {
  const script = `local value = redis.call('INCR', KEYS[1])
if value == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value`;
  redis.defineCommand('incrementWithTtl', { numberOfKeys: 1, lua: script });
  const call = (key: string) => (redis as unknown as { incrementWithTtl(key: string, ttl: string): Promise<number> }).incrementWithTtl(key, '61000');
  const calls = 20_000;
  const before = readCpuMicros(pid) ?? 0;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < calls) await call(`rpm:key_${next++ % 1000}:1`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const entry = { measure: 'redis rate-limit counter (EVALSHA)', calls, redisCpuMicrosPerCall: round(((readCpuMicros(pid) ?? 0) - before) / calls, 1), callsPerSecond: Math.round(calls / seconds) };
  process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
  return entry;
}

main().catch((error: unknown) => {
  process.stderr.write(`measure-database-work: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
