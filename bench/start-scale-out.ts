import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import pg from 'pg';
import { checkBooks, type BooksCheck } from './check-books.js';
import { childEnvironment, findFreePort, spawnChild, waitForHttp, type ManagedChild } from './child-process.js';
import { switchyardConfigYaml, type RunningSimulator, type RunningTarget, type TargetName } from './start-targets.js';

/**
 * The scale-out setup: `switchyard serve` on PostgreSQL + Redis, one or three instances on one
 * database, one hot account (every connection spends from the same balance) or many accounts
 * (one per connection). Each run gets a schema of its own (dropped afterwards) through
 * PGOPTIONS, so it can share a database with other work.
 */
export interface ScaleOutSettings {
  databaseUrl: string;
  redisUrl: string;
  instances: number;
  /** 1: one hot account; more: one account per connection, round robin. */
  accounts: number;
  directory: string;
  logLevel: string;
  nodeFlags?: string[];
  /** Per-instance balance leases: true `SWITCHYARD_LEASES=on`, false `off`, absent the product's default (on, on PostgreSQL). */
  leases?: boolean;
  /** A command that runs node, e.g. valgrind (`bench/investigations/count-instructions.ts`). */
  launcher?: string[];
  /** How long an instance may take to answer /health (default 120 s). */
  startTimeoutMs?: number;
}

const ADMIN_TOKEN = 'bench-admin-token';
/** How long a stopped instance has to exit on its own (grace 2 s, then the books flush and the leases go back) before it is killed. */
const STOP_GRACE_MS = 20_000;

/** The lease rows held while the instances run, and whether the rows held agree with the accounts' `reserved`. */
async function countLiveLeases(admin: pg.Client, schema: string): Promise<{ liveLeases: number; liveReservedAgrees: boolean }> {
  const result = await admin.query(`select (select count(*)::int from "${schema}".reservations where id like 'lse%') as leases,
      (select coalesce(sum(amount), 0)::text from "${schema}".reservations) as held, (select coalesce(sum(reserved), 0)::text from "${schema}".accounts) as reserved`);
  const row = result.rows[0] as { leases: number; held: string; reserved: string };
  return { liveLeases: row.leases, liveReservedAgrees: row.held === row.reserved };
}

export async function startSwitchyardScaleOut(root: string, name: TargetName, simulator: RunningSimulator, settings: ScaleOutSettings): Promise<RunningTarget & { checkBooks(): Promise<BooksCheck> }> {
  const schema = `bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: settings.databaseUrl });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  const configPath = join(settings.directory, 'switchyard.yaml');
  await writeFile(configPath, switchyardConfigYaml(simulator.url));
  const env = {
    DATABASE_URL: settings.databaseUrl,
    PGOPTIONS: `-c search_path=${schema}`,
    REDIS_URL: settings.redisUrl,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: settings.logLevel,
    HOST: '127.0.0.1',
    SWITCHYARD_SHUTDOWN_GRACE_MS: '2000',
    // No balancer in front: no drain period. With the default 5 s drain a stop bounded at 5 s
    // killed the instances before they gave their leases back (the open lease row of issue 23).
    SWITCHYARD_SHUTDOWN_DRAIN_MS: '0',
    ...(settings.leases !== undefined && { SWITCHYARD_LEASES: settings.leases ? 'on' : 'off' }),
  };
  const children: ManagedChild[] = [];
  const origins: string[] = [];
  // One after the other: the first one migrates the schema.
  for (let index = 0; index < settings.instances; index += 1) {
    const port = await findFreePort();
    const [command, ...args] = [...(settings.launcher ?? []), process.execPath, ...(settings.nodeFlags ?? []), join(root, 'bin', 'switchyard.js'), 'serve'];
    const child = spawnChild(`switchyard ${index + 1}`, command, args, {
      cwd: root,
      env: childEnvironment({ ...env, PORT: String(port) }),
      logFile: join(settings.directory, `switchyard-${index + 1}.log`),
    });
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/health`, child, settings.startTimeoutMs ?? 120_000);
    children.push(child);
    origins.push(origin);
  }
  const keys: string[] = [];
  const accountIds: string[] = [];
  for (let index = 0; index < settings.accounts; index += 1) {
    const response = await fetch(`${origins[0]}/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${index}`, credits: 1_000_000 }),
    });
    const created = (await response.json()) as { key: string; data: { id: string } };
    keys.push(created.key);
    accountIds.push(created.data.id);
  }
  const headers = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
  return {
    name,
    origin: origins[0],
    origins,
    headerSets: keys.map(headers),
    path: '/v1/chat/completions',
    headers: headers(keys[0]),
    model: 'bench/gpt-sim',
    pid: children[0].pid,
    pids: children.map((child) => child.pid),
    async stop() {
      await Promise.all(children.map((child) => child.stop(STOP_GRACE_MS)));
      await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
      await admin.end();
    },
    async checkBooks() {
      // A live instance holds its lease as an open reservation row (counted, not a leak); stopped
      // gracefully it hands the lease back, and then the books must close exactly, no row open.
      const live = await countLiveLeases(admin, schema);
      await Promise.all(children.map((child) => child.stop(STOP_GRACE_MS)));
      const killedInstances = children.filter((child) => child.process.signalCode === 'SIGKILL').length;
      return { ...(await checkBooks(admin, schema, accountIds)), ...live, killedInstances };
    },
  };
}
