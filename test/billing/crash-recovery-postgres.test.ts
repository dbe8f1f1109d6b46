import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@switchyard/simulator';
import { createStore } from '../../src/store/create-store.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';
import { uniqueSchemaName } from '../helpers/test-databases.js';

/**
 * Issue 9, defect 2: kill -9 of one of three instances on PostgreSQL in the middle of a burst.
 * Each charge commits together with its request log row, so whatever instant the process dies
 * at, the log and the ledger agree: after the others sweep its reservations, Σ ledger charges =
 * Σ request log costs = Σ usage rollups = total usage = credits − balance, to the nano-dollar.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');
afterAll(killSpawnedServers);

describe.skipIf(!postgresUrl)('kill -9 of one of three instances on PostgreSQL', () => {
  it('leaves no open reservation after the sweep, and the log, the rollups and the ledger agree exactly', async () => {
    const schema = uniqueSchemaName();
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema "${schema}"`);
    const simulator = await startSimulator({ latencyMs: 300, tokensPerSecond: 200 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-crash-pg-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, simulatedCatalogYaml(simulator.url));
    const env = { DATABASE_URL: postgresUrl!, PGOPTIONS: `-c search_path=${schema}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_INSTANCE_TIMEOUT_MS: '1500' };
    const store = await createStore(postgresUrl!, { schema });
    try {
      const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', '10'], { env: { ...process.env, ...env }, encoding: 'utf8' });
      const { key, data } = JSON.parse(created.stdout);
      const instances = [await spawnServer(env), await spawnServer(env), await spawnServer(env)];
      const send = (index: number) =>
        fetch(`${instances[index % 3].url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'sim/openai-model', max_tokens: 30, stream: index % 2 === 0, messages: [{ role: 'user', content: `burst ${index}` }] }),
        }).then((response) => response.text().then(() => response.status, () => 0), () => 0);
      // Waves, so that the victim dies with settlements at every stage: reserved, streaming, committing.
      const burst: Array<Promise<number>> = [];
      for (let wave = 0; wave < 6; wave += 1) {
        for (let index = 0; index < 15; index += 1) burst.push(send(wave * 15 + index));
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
      instances[0].child.kill('SIGKILL');
      const statuses = await Promise.all(burst);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(30);
      expect(statuses.some((status) => status === 0)).toBe(true);

      // The survivors' sweep releases the victim's reservations (and lease, docs/leases.md),
      // then forgets the victim's instance row; then the survivors stop gracefully, giving
      // their own leases back.
      let live = -1;
      for (let attempt = 0; attempt < 100 && live !== 2; attempt += 1) {
        live = (await store.db.selectFrom('instances').select('id').execute()).length;
        if (live !== 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(live).toBe(2);
      for (const instance of instances.slice(1)) instance.child.kill('SIGTERM');
      await Promise.all(instances.slice(1).map((instance) => new Promise((resolve) => instance.child.once('exit', resolve))));
      let open = -1;
      for (let attempt = 0; attempt < 100 && open !== 0; attempt += 1) {
        open = (await store.db.selectFrom('reservations').select('id').execute()).length;
        if (open !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(open).toBe(0);
      const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
      const total = async (query: ReturnType<typeof sql<{ total: string | null }>>) => BigInt((await query.execute(store.db)).rows[0].total ?? 0);
      const charges = await total(sql`select sum(amount)::text as total from ledger_entries where account_id = ${data.id} and kind = 'charge'`);
      const credits = await total(sql`select sum(amount)::text as total from ledger_entries where account_id = ${data.id} and kind = 'credit'`);
      const logged = await total(sql`select sum(cost)::text as total from requests where account_id = ${data.id}`);
      const rolledUp = await total(sql`select sum(cost)::text as total from usage_rollups where account_id = ${data.id}`);
      const rows = await sql<{ requests: string; charged: string }>`select (select count(*) from requests where account_id = ${data.id} and cost > 0)::text as requests,
        (select count(*) from ledger_entries where account_id = ${data.id} and kind = 'charge')::text as charged`.execute(store.db);
      expect(charges).toBeGreaterThan(0n);
      expect(logged).toBe(charges);
      expect(rolledUp).toBe(charges);
      expect(BigInt(account.total_usage)).toBe(charges);
      expect(BigInt(account.reserved)).toBe(0n);
      expect(BigInt(account.total_credits) - BigInt(account.total_usage)).toBe(credits - charges);
      expect(rows.rows[0].requests).toBe(rows.rows[0].charged);

    } finally {
      await store.close();
      await simulator.close();
      await admin.query(`drop schema if exists "${schema}" cascade`);
      await admin.end();
    }
  }, 180_000);
});
