import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@switchyard/simulator';
import { createStore } from '../../src/store/create-store.js';
import { burst, creditsFor, FIXED_COST as COST, fixedCostCatalogYaml, readBooks as books } from '../helpers/fixed-cost-load.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

/**
 * Leases on SQLite (docs/leases.md), as `switchyard serve` runs by default: requests reserve in
 * memory out of a lease row instead of a reservation transaction each. A model priced by
 * completion tokens only, a reply longer than `max_tokens`: every request reserves and is charged
 * exactly COST, so a balance of N × COST must serve exactly N requests.
 */
afterAll(killSpawnedServers);

describe('leases on SQLite', () => {
  it('serve exactly N requests on a balance for N, refuse the rest with 402, and give the lease back at shutdown', async () => {
    const N = 300;
    const simulator = await startSimulator({ latencyMs: 5, replyTokens: 50 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-leases-sqlite-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, fixedCostCatalogYaml(simulator.url));
    const env = { DATABASE_URL: `sqlite:${join(directory, 'leases.db')}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_LEASES: undefined };
    const credits = creditsFor(N);
    const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', credits], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const { key, data } = JSON.parse(created.stdout) as { key: string; data: { id: string } };
    const store = await createStore(env.DATABASE_URL);
    try {
      const server = await spawnServer(env);
      // A first wave, well inside the balance: served out of one lease row, no reservation row of a request's own left.
      const first = await burst([server.url], key, 40, 8, { streamOdd: true });
      expect(first.every((status) => status === 200)).toBe(true);
      const rows = await store.db.selectFrom('reservations').select(['id', 'amount']).where('account_id', '=', data.id).execute();
      expect(rows.map((row) => row.id.slice(0, 4))).toEqual(['lse_']);
      const during = await books(store, data.id);
      expect(during.reserved).toBe(BigInt(rows[0].amount));
      expect(during.charges).toBe(40n * COST);

      const rest = await burst([server.url], key, 2 * N - 40, 16, { streamOdd: true });
      const statuses = [...first, ...rest];
      expect(statuses.filter((status) => status === 200).length).toBe(N);
      expect(statuses.filter((status) => status === 402).length).toBe(N);

      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const after = await books(store, data.id);
      expect(after.charges).toBe(COST * BigInt(N));
      expect(after).toMatchObject({ usage: after.credits, reserved: 0n, open: 0, uncollected: 0n, logged: after.charges, rolledUp: after.charges });
    } finally {
      await store.close();
      await simulator.close();
    }
  }, 180_000);
});
