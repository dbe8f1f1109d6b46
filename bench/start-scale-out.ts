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
  /** Per-instance balance leases (`SWITCHYARD_LEASES=on`); off otherwise, whatever the default. */
  leases?: boolean;
}

const ADMIN_TOKEN = 'bench-admin-token';

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
    SWITCHYARD_LEASES: settings.leases ? 'on' : 'off',
  };
  const children: ManagedChild[] = [];
  const origins: string[] = [];
  // One after the other: the first one migrates the schema.
  for (let index = 0; index < settings.instances; index += 1) {
    const port = await findFreePort();
    const child = spawnChild(`switchyard ${index + 1}`, process.execPath, [...(settings.nodeFlags ?? []), join(root, 'bin', 'switchyard.js'), 'serve'], {
      cwd: root,
      env: childEnvironment({ ...env, PORT: String(port) }),
      logFile: join(settings.directory, `switchyard-${index + 1}.log`),
    });
    const origin = `http://127.0.0.1:${port}`;
    await waitForHttp(`${origin}/health`, child, 120_000);
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
      await Promise.all(children.map((child) => child.stop(5000)));
      await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
      await admin.end();
    },
    async checkBooks() {
      // A live instance holds its lease as an open reservation row; stopped (SIGTERM), it hands
      // the lease back, and then the books must close exactly like the per-request path's.
      if (settings.leases) await Promise.all(children.map((child) => child.stop(5000)));
      return checkBooks(admin, schema, accountIds);
    },
  };
}
