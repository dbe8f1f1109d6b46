import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { simulatedCatalogYaml } from './simulated-gateway.js';
import { killSpawnedServers, switchyardBin } from './spawn-server.js';

/**
 * What the suites that stop a spawned server share: a simulator streaming 20 tokens a second (a
 * stream of N tokens lasts N/20 s), a catalog on it, and per server an environment with its own
 * SQLite database and the given drain and keep-alive timeout. Registers its own hooks.
 */
export function useShutdownFixture(times: { drainMs: number; keepAliveMs: number }): { environment: (name: string) => Record<string, string> & { DATABASE_URL: string } } {
  let simulator: Simulator;
  let directory: string;
  beforeAll(async () => {
    simulator = await startSimulator({ tokensPerSecond: 20 });
    directory = mkdtempSync(join(tmpdir(), 'switchyard-shutdown-'));
    writeFileSync(join(directory, 'switchyard.yaml'), simulatedCatalogYaml(simulator.url));
  });
  afterAll(async () => {
    killSpawnedServers();
    await simulator.close();
  });
  return {
    environment: (name) => ({
      DATABASE_URL: `sqlite:${join(directory, `${name}.db`)}`,
      SWITCHYARD_CONFIG: join(directory, 'switchyard.yaml'),
      LOG_LEVEL: 'silent',
      SWITCHYARD_SHUTDOWN_DRAIN_MS: String(times.drainMs),
      SWITCHYARD_KEEP_ALIVE_TIMEOUT_MS: String(times.keepAliveMs),
    }),
  };
}

/** An account with 10 USD, created by the admin CLI on the environment's database. */
export function createAccountByCli(env: Record<string, string>): { key: string } {
  const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', '10'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(created.stdout) as { key: string };
}

export function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}
