import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { createStore, type Store } from '../../src/store/create-store.js';
import { canRunOwnPostgres, startOwnPostgres, startOwnRedis, startProxy, type OwnPostgres, type OwnRedis, type SilenceableProxy } from '../helpers/own-services.js';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

/**
 * Issue 9, defect 3: database and Redis faults under load, on a PostgreSQL and a redis-server
 * of this test's own (never the shared ones), behind two gateway processes. No process exits,
 * clients get 503 `service_unavailable` in the envelope (or their answer), `/ready` says so
 * meanwhile, the gateway heals without a restart, and the books are exact afterwards.
 *
 * Run twice: with per-instance leases (docs/leases.md), the default on PostgreSQL, and with
 * `SWITCHYARD_LEASES=off`, the exact path (one reservation row per request), which stays
 * available and whose fault behaviour is its own.
 */
const runnable = canRunOwnPostgres();
if (!runnable) process.stdout.write('database fault tests SKIPPED: needs the PostgreSQL server binaries and a postgres user\n');

describe.skipIf(!runnable).each([
  { mode: 'leases (the default)', leases: true },
  { mode: 'SWITCHYARD_LEASES=off', leases: false },
])('PostgreSQL and Redis faults under load, two gateway processes, $mode', ({ leases }) => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let proxy: SilenceableProxy;
  let simulator: Simulator;
  let store: Store;
  let instances: Array<{ child: ChildProcess; url: string }>;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    redis = await startOwnRedis();
    proxy = await startProxy(postgres.port);
    simulator = await startSimulator({ latencyMs: 30 });
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-faults-'));
    const configPath = join(directory, 'switchyard.yaml');
    writeFileSync(configPath, simulatedCatalogYaml(simulator.url).replace('requests_per_minute: 0', 'requests_per_minute: 100000'));
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`,
      REDIS_URL: redis.url,
      SWITCHYARD_CONFIG: configPath,
      LOG_LEVEL: 'silent',
      SWITCHYARD_INSTANCE_TIMEOUT_MS: '3000',
      SWITCHYARD_PG_CONNECT_TIMEOUT_MS: '1000',
      SWITCHYARD_PG_QUERY_TIMEOUT_MS: '1500',
      SWITCHYARD_PG_STATEMENT_TIMEOUT_MS: '1200',
      SWITCHYARD_SETTLE_WAIT_MS: '2000',
      // Unset: the default (leases on PostgreSQL).
      SWITCHYARD_LEASES: leases ? undefined : 'off',
    };
    // Straight to the database: spawnSync blocks this process, and with it the proxy.
    const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', '50'], { env: { ...process.env, ...env, DATABASE_URL: postgres.url }, encoding: 'utf8' });
    if (created.status !== 0) throw new Error(created.stderr);
    ({ key, data: { id: accountId } } = JSON.parse(created.stdout));
    instances = await Promise.all([spawnServer(env), spawnServer(env)]);
    store = await createStore(postgres.url);
  }, 180_000);

  afterAll(async () => {
    killSpawnedServers();
    await store?.close();
    await proxy?.close();
    await simulator?.close();
    redis?.kill();
    postgres?.destroy();
  });

  const chat = (url: string, stream = false) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim/openai-model', max_tokens: 10, stream, messages: [{ role: 'user', content: 'fault test' }] }),
      signal: AbortSignal.timeout(15_000),
    }).then(
      async (response) => ({ status: response.status, body: await response.text(), ms: 0 }),
      (error: Error) => ({ status: 0, body: error.message, ms: 0 }),
    );
  const timed = async (url: string, stream = false) => {
    const started = Date.now();
    const answer = await chat(url, stream);
    return { ...answer, ms: Date.now() - started };
  };
  const ready = (url: string) => fetch(`${url}/ready`).then((response) => response.status, () => 0);
  const alive = () => instances.every((instance) => instance.child.exitCode === null && instance.child.signalCode === null);
  const expectCleanOutcomes = (answers: Array<{ status: number; body: string }>) => {
    for (const answer of answers) {
      if (answer.status === 200) continue;
      expect(answer.status, answer.body).toBe(503);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
  };
  /** Load on both instances until `stop` resolves: `clients` requests in flight at all times. */
  const load = async (stop: Promise<unknown>, clients = 6) => {
    let done = false;
    void stop.then(() => (done = true));
    const answers: Array<{ status: number; body: string; ms: number }> = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, index) => {
        while (!done) answers.push(await timed(instances[index % 2].url, index % 3 === 0));
      }),
    );
    return answers;
  };
  const healed = async (deadlineMs = 20_000) => {
    const started = Date.now();
    for (;;) {
      const statuses = await Promise.all(instances.map((instance) => ready(instance.url)));
      const answers = await Promise.all(instances.map((instance) => chat(instance.url)));
      if (statuses.every((status) => status === 200) && answers.every((answer) => answer.status === 200)) return Date.now() - started;
      if (Date.now() - started > deadlineMs) throw new Error(`not healed: ready ${statuses}, answers ${answers.map((answer) => answer.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('survives every backend being terminated mid-load (a failover): clean 503s at most, no exit, heals', async () => {
    const stop = (async () => {
      for (let round = 0; round < 4; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        await postgres.terminateBackends();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    })();
    const answers = await load(stop);
    expect(answers.length).toBeGreaterThan(20);
    expectCleanOutcomes(answers);
    expect(alive()).toBe(true);
    await healed();
  }, 60_000);

  it('answers 503 quickly while the database refuses connections, /ready says so, and heals once it is back', async () => {
    postgres.stop('fast');
    const during = await Promise.all([timed(instances[0].url), timed(instances[1].url, true)]);
    expectCleanOutcomes(during);
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.ms).toBeLessThan(4_000);
    }
    expect(await Promise.all(instances.map((instance) => ready(instance.url)))).toEqual([503, 503]);
    postgres.start();
    await healed();
    expect(alive()).toBe(true);
  }, 60_000);

  it('answers 503 within the timeouts while the database is silent (dropped packets), and heals', async () => {
    const stop = new Promise((resolve) => setTimeout(resolve, 6_000));
    setTimeout(() => proxy.silence(), 500);
    const answers = await load(stop, 4);
    proxy.restore();
    expectCleanOutcomes(answers);
    // Bounded by the timeouts: an answer already generated waits at most SWITCHYARD_SETTLE_WAIT_MS
    // (2 s) for its charge to commit (the charge stays queued); a new request fails at the query
    // timeout (1.5 s) or the connect timeout. Never the unbounded hang of old.
    for (const answer of answers) expect(answer.ms).toBeLessThan(5_000);
    expect(answers.some((answer) => answer.status === 503)).toBe(true);
    expect(alive()).toBe(true);
    await healed(30_000);
  }, 90_000);

  it('answers 503 for checks that need Redis while it is killed, and heals when it is back', async () => {
    redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await Promise.all(instances.map((instance) => timed(instance.url)));
    expectCleanOutcomes(during);
    expect(during.every((answer) => answer.status === 503)).toBe(true);
    await redis.start();
    await healed();
    expect(alive()).toBe(true);
  }, 60_000);

  it('charges, never zero, the requests of an instance paused (SIGSTOP) past the instance timeout, which then registers again; never overspends', async () => {
    const paused = instances[0];
    const instanceIds = (await store.db.selectFrom('instances').select('id').execute()).map((row) => row.id);
    expect(instanceIds).toHaveLength(2);
    const send = (index: number) =>
      fetch(`${paused.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/openai-model', max_tokens: 10, stream: index % 2 === 0, ...(index % 2 === 0 && { stream_options: { include_usage: true } }), messages: [{ role: 'user', content: `paused ${index} [[sim:latency=800]]` }] }),
      }).then(async (response) => ({ id: response.headers.get('x-request-id')!, status: response.status, body: await response.text() }));
    const rowsByInstance = async () => {
      const rows = await store.db.selectFrom('reservations').select(['id', 'instance_id', 'amount']).execute();
      const by = new Map<string, Array<{ id: string; amount: bigint }>>();
      for (const row of rows) by.set(row.instance_id ?? '', [...(by.get(row.instance_id ?? '') ?? []), { id: row.id, amount: BigInt(row.amount) }]);
      return by;
    };
    if (leases) {
      // After the outages above, reservations go the exact way for a moment (a refused grant,
      // the database counted down until it has answered for 2 s): past it, both serve out of leases again.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await healed();
    }
    // One request answered first: the instance has reconnected after the faults above and (with
    // leases) holds its lease, so the four below reserve at once. Without it, its first requests
    // held nothing yet 300 ms after they went out, twice in CI (the reconnection came first).
    expect((await chat(paused.url)).status).toBe(200);
    const requests = [send(0), send(1), send(2), send(3)];
    // The simulator holds each answer 800 ms: at 600 ms the requests are still in flight.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const held = await rowsByInstance();
    if (!leases) expect([...held.values()].flat().length).toBeGreaterThanOrEqual(4);
    paused.child.kill('SIGSTOP');
    // Whatever fails below, the process must not stay stopped (the next test stops it).
    onTestFinished(() => {
      paused.child.kill('SIGCONT');
    });
    // The other instance sweeps once the heartbeat is 3 s old (it looks every second): the
    // paused one's instance row goes, and with it every reservation row it held.
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if ((await store.db.selectFrom('instances').select('id').execute()).length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const live = await store.db.selectFrom('instances').select('id').execute();
    expect(live).toHaveLength(1);
    const pausedId = instanceIds.find((id) => id !== live[0].id)!;
    if (leases) {
      // The paused instance's requests were reserved within its lease: one row, holding at least what they took.
      expect(held.get(pausedId)?.map((row) => row.id.slice(0, 3))).toEqual(['lse']);
      expect(held.get(pausedId)?.[0]?.amount ?? 0n).toBeGreaterThan(0n);
    }
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (!(await rowsByInstance()).has(pausedId)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await rowsByInstance()).get(pausedId)).toBeUndefined();
    // The exact path holds nothing at rest; a live lease is the other instance's.
    if (!leases) expect(await store.db.selectFrom('reservations').select('id').execute()).toEqual([]);
    paused.child.kill('SIGCONT');
    const answers = await Promise.all(requests);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const charge = await store.db.selectFrom('ledger_entries').select('amount').where('request_id', '=', answer.id).where('kind', '=', 'charge').executeTakeFirst();
      expect(BigInt(charge?.amount ?? 0n)).toBeGreaterThan(0n);
    }
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if ((await store.db.selectFrom('instances').select('id').execute()).length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await store.db.selectFrom('instances').select('id').execute()).length).toBe(2);
    expect(alive()).toBe(true);
    await healed();
    // While both run: nothing overspent, nothing uncollected, and what the rows hold is what the account has reserved.
    const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
    const rows = await sql<{ total: string }>`select coalesce(sum(amount), 0)::text as total from reservations where account_id = ${accountId}`.execute(store.db);
    expect(BigInt(account.total_credits) - BigInt(account.total_usage) - BigInt(account.reserved)).toBeGreaterThanOrEqual(0n);
    expect(BigInt(rows.rows[0].total)).toBe(BigInt(account.reserved));
    const uncollected = await store.db.selectFrom('ledger_entries').select('id').where('account_id', '=', accountId).where('kind', '=', 'uncollected').execute();
    expect(uncollected).toEqual([]);
  }, 60_000);

  it('keeps the books exact after all of it: Σ charges = Σ request costs = total usage = credits − balance, no open reservation', async () => {
    // Stopped gracefully, the instances give their leases (docs/leases.md) back: every amount
    // still reserved afterwards would be a leak.
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => (instance.child.exitCode === null ? new Promise((resolve) => instance.child.once('exit', resolve)) : undefined)));
    let open = -1;
    for (let attempt = 0; attempt < 100 && open !== 0; attempt += 1) {
      open = (await store.db.selectFrom('reservations').select('id').execute()).length;
      if (open !== 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(open).toBe(0);
    const account = await store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
    const ledger = await sql<{ kind: string; total: string }>`select kind, sum(amount)::text as total from ledger_entries where account_id = ${accountId} group by kind`.execute(store.db);
    const byKind = Object.fromEntries(ledger.rows.map((row) => [row.kind, BigInt(row.total)]));
    const logged = await sql<{ total: string }>`select coalesce(sum(cost), 0)::text as total from requests where account_id = ${accountId}`.execute(store.db);
    const rollups = await sql<{ total: string }>`select coalesce(sum(cost), 0)::text as total from usage_rollups where account_id = ${accountId}`.execute(store.db);
    expect(byKind.charge).toBeGreaterThan(0n);
    expect(BigInt(logged.rows[0].total)).toBe(byKind.charge);
    expect(BigInt(rollups.rows[0].total)).toBe(byKind.charge);
    expect(BigInt(account.total_usage)).toBe(byKind.charge);
    expect(BigInt(account.reserved)).toBe(0n);
    expect(BigInt(account.total_credits) - BigInt(account.total_usage)).toBe(byKind.credit - byKind.charge);
    expect(byKind.uncollected).toBeUndefined();
  }, 60_000);
});
