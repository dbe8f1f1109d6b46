import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@switchyard/simulator';
import { createStore } from '../../src/store/create-store.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

const bin = switchyardBin;
afterAll(killSpawnedServers);

describe('crash recovery', () => {
  it('after kill -9 during a burst, a restart leaves no reservation (nor lease) open and balance = credits − charges', async () => {
    const simulator = await startSimulator({ latencyMs: 400 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-crash-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, simulatedCatalogYaml(simulator.url));
    const env = { DATABASE_URL: `sqlite:${join(directory, 'crash.db')}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_INSTANCE_TIMEOUT_MS: '1000' };
    const created = spawnSync(process.execPath, [bin, 'admin', 'create-account', '--credits', '10'], { env: { ...process.env, ...env }, encoding: 'utf8' });
    const { key, data } = JSON.parse(created.stdout);
    try {
      const first = await spawnServer(env);
      const burst = Array.from({ length: 30 }, (_, index) =>
        fetch(`${first.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'sim/openai-model', max_tokens: 20, stream: index % 2 === 0, messages: [{ role: 'user', content: 'crash me' }] }),
        }).then((response) => response.text(), () => 'connection lost'),
      );
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
      first.child.kill('SIGKILL');
      await Promise.all(burst);

      const store = await createStore(env.DATABASE_URL);
      try {
        const held = await store.db.selectFrom('reservations').select('id').execute();
        expect(held.length).toBeGreaterThan(0);
        // Leases (on by default, docs/leases.md): the dead process's lease row, holding its requests in flight, comes back too.
        expect(held.some((row) => row.id.startsWith('lse_'))).toBe(true);

        const second = await spawnServer(env);
        let open = held.length;
        for (let attempt = 0; attempt < 100 && open > 0; attempt += 1) {
          await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
          open = (await store.db.selectFrom('reservations').select('id').execute()).length;
        }
        expect(open).toBe(0);
        const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
        const charges = await sql<{ total: bigint | null }>`select sum(amount) as total from ledger_entries where account_id = ${data.id} and kind = 'charge'`.execute(store.db);
        expect(BigInt(account.reserved)).toBe(0n);
        expect(BigInt(account.total_usage)).toBe(BigInt(charges.rows[0].total ?? 0));
        const credits = await (await fetch(`${second.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } })).json() as any;
        expect(BigInt(Math.round(credits.data.balance * 1e9))).toBe(10_000_000_000n - BigInt(charges.rows[0].total ?? 0));
        second.child.kill('SIGTERM');
      } finally {
        await store.close();
      }
    } finally {
      await simulator.close();
    }
  }, 180_000);
});
