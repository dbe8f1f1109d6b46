import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@switchyard/simulator';
import { createStore } from '../../src/store/create-store.js';
import { burst, creditsFor, FIXED_COST as COST, fixedCostCatalogYaml, readBooks as books } from '../helpers/fixed-cost-load.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';
import { uniqueSchemaName } from '../helpers/test-databases.js';

/**
 * Issue 23, scope 1: three real `switchyard serve` processes on one account, reserving within
 * per-instance leases, as they do by default on PostgreSQL (`SWITCHYARD_LEASES` unset). A model priced by completion tokens only,
 * a reply longer than `max_tokens`: every request reserves and is charged exactly COST, so a
 * balance of N × COST must serve exactly N requests whichever instance serves them.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL lease tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');
afterAll(killSpawnedServers);

const INSTANCE_TIMEOUT_MS = 1500;

async function setUp(credits: string) {
  const schema = uniqueSchemaName();
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  const simulator = await startSimulator({ latencyMs: 20, replyTokens: 50 });
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-leases-'));
  const configPath = join(directory, 'switchyard.yaml');
  writeFileSync(configPath, fixedCostCatalogYaml(simulator.url));
  const env = { DATABASE_URL: postgresUrl!, PGOPTIONS: `-c search_path=${schema}`, SWITCHYARD_CONFIG: configPath, LOG_LEVEL: 'silent', SWITCHYARD_INSTANCE_TIMEOUT_MS: String(INSTANCE_TIMEOUT_MS), SWITCHYARD_LEASES: undefined };
  const store = await createStore(postgresUrl!, { schema });
  const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', credits], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const { key, data } = JSON.parse(created.stdout) as { key: string; data: { id: string } };
  const close = async () => {
    await store.close();
    await simulator.close();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  };
  return { env, store, key, accountId: data.id, close };
}

/**
 * The instances' rows, once there are `count` (up to 10 s): on a loaded machine one instance's
 * sweep can take another, slow to beat while starting, for dead and remove its row, which the
 * slow one writes again (same id) at its next heartbeat.
 */
async function instanceIds(store: Awaited<ReturnType<typeof setUp>>['store'], count: number): Promise<string[]> {
  let ids: string[] = [];
  for (let attempt = 0; attempt < 200; attempt += 1) {
    ids = (await store.db.selectFrom('instances').select('id').execute()).map((row) => row.id);
    if (ids.length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return ids;
}

describe.skipIf(!postgresUrl)('leases: three instances on one hot account (PostgreSQL)', () => {
  it('serves exactly N requests on a balance for N, refuses the rest with 402, and gives every lease back at shutdown', async () => {
    const N = 240;
    const setup = await setUp(creditsFor(N));
    try {
      const instances = [await spawnServer(setup.env), await spawnServer(setup.env), await spawnServer(setup.env)];
      let leasesSeen = 0;
      const watch = setInterval(() => {
        void sql<{ count: string }>`select count(*)::text as count from reservations where id like 'lse%'`.execute(setup.store.db).then((result) => {
          leasesSeen = Math.max(leasesSeen, Number(result.rows[0].count));
        }, () => undefined);
      }, 20);
      const statuses = await burst(instances.map((instance) => instance.url), setup.key, 2 * N, 24);
      clearInterval(watch);
      expect(statuses.filter((status) => status === 200).length).toBe(N);
      expect(statuses.filter((status) => status === 402).length).toBe(N);
      // The money went through leases, not only through the per-request reservation.
      expect(leasesSeen).toBeGreaterThanOrEqual(2);
      for (const instance of instances) instance.child.kill('SIGTERM');
      await Promise.all(instances.map((instance) => new Promise((resolve) => instance.child.once('exit', resolve))));
      const after = await books(setup.store, setup.accountId);
      expect(after.charges).toBe(COST * BigInt(N));
      expect(after).toMatchObject({ usage: after.credits, reserved: 0n, keyReserved: 0n, held: 0n, uncollected: 0n, logged: after.charges, rolledUp: after.charges });
    } finally {
      await setup.close();
    }
  }, 180_000);

  it('SIGTERM to all three mid-burst: every lease row is given back, reserved is 0 on the account and the key, the books exact', async () => {
    const setup = await setUp('5');
    try {
      // A drain period, as behind a balancer: requests keep arriving while /ready says 503.
      const env = { ...setup.env, SWITCHYARD_SHUTDOWN_DRAIN_MS: '300' };
      const instances = [await spawnServer(env), await spawnServer(env), await spawnServer(env)];
      const ids = await instanceIds(setup.store, 3);
      expect(ids).toHaveLength(3);
      const running = burst(instances.map((instance) => instance.url), setup.key, 3000, 24);
      // Until every instance holds a lease.
      for (let attempt = 0; attempt < 400; attempt += 1) {
        const holders = await sql<{ n: string }>`select count(distinct instance_id)::text as n from reservations where id like 'lse%'`.execute(setup.store.db);
        if (Number(holders.rows[0].n) === 3) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const holders = await sql<{ n: string }>`select count(distinct instance_id)::text as n from reservations where id like 'lse%'`.execute(setup.store.db);
      expect(Number(holders.rows[0].n)).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exits = instances.map((instance) => new Promise<number | null>((resolve) => instance.child.once('exit', resolve)));
      for (const instance of instances) instance.child.kill('SIGTERM');
      // Graceful: each exits 0 on its own, having given its leases back (no sweep: nobody is left to run one).
      expect(await Promise.all(exits)).toEqual([0, 0, 0]);
      const statuses = await running;
      const served = statuses.filter((status) => status === 200).length;
      expect(served).toBeGreaterThan(0);
      expect(await setup.store.db.selectFrom('reservations').select('id').where('instance_id', 'in', ids).execute()).toEqual([]);
      const after = await books(setup.store, setup.accountId);
      expect(after).toMatchObject({ reserved: 0n, keyReserved: 0n, held: 0n, uncollected: 0n, charges: COST * BigInt(served), logged: after.charges, rolledUp: after.charges, usage: after.charges });
    } finally {
      await setup.close();
    }
  }, 180_000);

  it('after kill -9 of one instance mid-burst, its lease is back within the instance timeout and the books are exact', async () => {
    const setup = await setUp('5');
    try {
      const victim = await spawnServer(setup.env);
      const victimId = (await setup.store.db.selectFrom('instances').select('id').executeTakeFirstOrThrow()).id;
      const instances = [victim, await spawnServer(setup.env), await spawnServer(setup.env)];
      const urls = instances.map((instance) => instance.url);
      const running = burst(urls, setup.key, 900, 30);
      // Until the victim holds a lease with requests in flight out of it.
      let victimHeld = 0n;
      for (let attempt = 0; attempt < 200 && victimHeld === 0n; attempt += 1) {
        const row = await sql<{ held: string | null }>`select sum(amount)::text as held from reservations where instance_id = ${victimId} and id like 'lse%'`.execute(setup.store.db);
        victimHeld = BigInt(row.rows[0].held ?? 0);
        if (victimHeld === 0n) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(victimHeld).toBeGreaterThan(0n);
      await new Promise((resolve) => setTimeout(resolve, 150));
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      let releasedAfterMs = -1;
      while (Date.now() - killedAt < 4 * INSTANCE_TIMEOUT_MS) {
        const rows = await setup.store.db.selectFrom('reservations').select('id').where('instance_id', '=', victimId).execute();
        if (rows.length === 0) {
          releasedAfterMs = Date.now() - killedAt;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // Its last heartbeat was at most a third of the timeout before the kill, and the survivors sweep every third.
      expect(releasedAfterMs).toBeGreaterThanOrEqual(0);
      expect(releasedAfterMs).toBeLessThanOrEqual(INSTANCE_TIMEOUT_MS + INSTANCE_TIMEOUT_MS / 3 + 500);
      const statuses = await running;
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(100);
      for (const instance of instances.slice(1)) instance.child.kill('SIGTERM');
      await Promise.all(instances.slice(1).map((instance) => new Promise((resolve) => instance.child.once('exit', resolve))));
      const after = await books(setup.store, setup.accountId);
      expect(after.charges).toBeGreaterThan(0n);
      expect(after).toMatchObject({ reserved: 0n, keyReserved: 0n, held: 0n, uncollected: 0n, logged: after.charges, rolledUp: after.charges, usage: after.charges });
      const charged = await sql<{ requests: string; entries: string }>`select (select count(*) from requests where account_id = ${setup.accountId} and cost > 0)::text as requests,
        (select count(*) from ledger_entries where account_id = ${setup.accountId} and kind = 'charge')::text as entries`.execute(setup.store.db);
      expect(charged.rows[0].requests).toBe(charged.rows[0].entries);
    } finally {
      await setup.close();
    }
  }, 180_000);
});
