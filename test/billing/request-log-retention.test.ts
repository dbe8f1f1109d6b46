import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUtcDay } from '../../src/api/shared/decode-date-range.js';
import { findRequest, insertRequests, listRequests } from '../../src/billing/db/requests.js';
import { adoptDefaultRows, convertToPartitioned, createPartitionsAhead, defaultTable, formerTable, hasDefaultPartition, isPartitioned, listPartitions } from '../../src/billing/db/request-log-partitions.js';
import { RequestLogMaintenance } from '../../src/billing/request-log-maintenance.js';
import { readRequestLogRetentionDays } from '../../src/config/read-request-log-retention.js';
import { createId } from '../../src/core/ids.js';
import { requestLogMaintenance } from '../../src/create-context.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';
import { completedRecord } from '../helpers/completed-record.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { openTestStore } from '../helpers/open-test-store.js';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

const dayMs = 86_400_000;
const logger = pino({ level: 'silent' });

describe('SWITCHYARD_REQUEST_LOG_RETENTION_DAYS', () => {
  it('keeps forever when unset, and refuses fewer than 7 days or a fraction', () => {
    expect(readRequestLogRetentionDays({})).toBeUndefined();
    expect(readRequestLogRetentionDays({ SWITCHYARD_REQUEST_LOG_RETENTION_DAYS: ' 30 ' })).toBe(30);
    expect(() => readRequestLogRetentionDays({ SWITCHYARD_REQUEST_LOG_RETENTION_DAYS: '6' })).toThrow(/at least 7/);
    expect(() => readRequestLogRetentionDays({ SWITCHYARD_REQUEST_LOG_RETENTION_DAYS: '7.5' })).toThrow(/whole number/);
  });
});

for (const database of testDatabases()) {
  describe(`request log retention on ${database.name}, driven by the context clock`, () => {
    let gateway: SimulatedGateway;
    let clock: ManualClock;
    let maintenance: RequestLogMaintenance;
    const start = Date.now();

    beforeAll(async () => {
      clock = new ManualClock(start);
      gateway = await startSimulatedGateway({ databaseUrl: database.url, clock });
      // The context's own maintenance started a run at start (on PostgreSQL: the conversion of
      // the empty log, which stopping may cut short: the next run starts it over); it is stopped
      // so that this test decides when the clock moves and runs pass.
      await requestLogMaintenance(gateway.test.context)?.stop();
      maintenance = new RequestLogMaintenance({ store: gateway.test.context.store, clock: gateway.test.context.clock, logger }, { retentionDays: 30, aheadDays: 3, sqliteBatchRows: 2, maxDropsPerRun: 10 });
    });
    afterAll(async () => gateway?.close());

    const get = async (key: string, path: string) => {
      const response = await gateway.test.app.inject({ method: 'GET', url: `/v1${path}`, headers: { authorization: `Bearer ${key}` } });
      return { status: response.statusCode, body: response.json() as Json };
    };
    const listAll = async (key: string, query = '') => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(key, `/requests?limit=1${query}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        ids.push(...page.body.data.map((row: Json) => row.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return ids;
    };

    it('creates days ahead, drops the days behind the retention, and keeps their usage', async () => {
      const { key, accountId } = await gateway.test.createAccount({ credits: 10 });
      // A request through the gateway: reserved, charged, logged and rolled up by the books.
      const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(chat.status).toBe(200);
      const served = chat.headers.get('x-request-id')!;
      const at = (ms: number, overrides: Parameters<typeof completedRecord>[1] = {}) =>
        completedRecord(accountId, { id: createId('req', ms), createdAt: new Date(ms).toISOString(), promptTokens: 2, completionTokens: 3, cost: 5n, ...overrides });
      const old = at(start - 20 * dayMs);
      await gateway.test.context.requestLog.record(old);
      await gateway.test.context.requestLog.flush();

      const first = await maintenance.runOnce();
      if (database.name === 'postgres') {
        // Converted at start (empty), then kept: ready 3 days past today, nothing dropped yet.
        const partitions = await withClient((client) => listPartitions(client));
        expect(partitions[0].name).toBe(formerTable);
        expect(partitions.at(-1)!.to >= createId('req', start + 3 * dayMs).slice(0, 14)).toBe(true);
        expect(first.dropped).toEqual([]);
      } else {
        expect(first.deletedRows).toBe(0);
      }

      // Ten days on: the days written now land in partitions of their own, made ahead.
      clock.advance(10 * dayMs);
      const ahead = await maintenance.runOnce();
      if (database.name === 'postgres') expect(ahead.created.length).toBeGreaterThan(0);
      const kept = at(clock.now().getTime(), { model: 'sim/gemini-model', provider: 'sim-gemini' });
      const keptNextDay = at(clock.now().getTime() + dayMs, { status: 'failed', errorCode: 'upstream_error', completionTokens: 0, cost: 0n });
      for (const record of [kept, keptNextDay]) await gateway.test.context.requestLog.record(record);
      await gateway.test.context.requestLog.flush();
      expect(await listAll(key)).toEqual([keptNextDay.id, kept.id, served, old.id]);

      const usageRange = `/usage?from=${formatUtcDay(start - 25 * dayMs)}&to=${formatUtcDay(start + 15 * dayMs)}`;
      const before = (await get(key, usageRange)).body.data.total;
      expect(before.requests).toBe(4);

      // 35 days after the start, 30 days kept: the gateway's request and the old row are past it.
      clock.advance(25 * dayMs);
      const behind = await maintenance.runOnce();
      if (database.name === 'postgres') {
        expect(behind.dropped).toContain(formerTable);
        const partitions = await withClient((client) => listPartitions(client));
        expect(partitions.every((partition) => partition.to > createId('req', clock.now().getTime() - 30 * dayMs).slice(0, 14))).toBe(true);
      } else {
        // Two rows, in batches of two: one full batch, then one that finds nothing more.
        expect(behind.deletedRows).toBe(2);
      }
      expect(await listAll(key)).toEqual([keptNextDay.id, kept.id]);
      expect((await get(key, `/requests/${old.id}`)).status).toBe(404);
      expect((await get(key, `/requests/${served}`)).status).toBe(404);
      expect((await get(key, `/requests/${kept.id}`)).body.data.id).toBe(kept.id);
      expect(await listAll(key, '&model=sim/gemini-model')).toEqual([kept.id]);
      expect(await listAll(key, '&provider=sim-gemini')).toEqual([kept.id]);
      expect(await listAll(key, '&status=failed')).toEqual([keptNextDay.id]);
      expect(await listAll(key, `&from=${formatUtcDay(Date.parse(kept.createdAt))}&to=${formatUtcDay(Date.parse(kept.createdAt))}`)).toEqual([kept.id]);
      // The usage of the dropped days stays: the books wrote it with each row, in one transaction.
      expect((await get(key, usageRange)).body.data.total).toEqual(before);

      // A later run finds nothing more to drop, and writes keep landing.
      const again = await maintenance.runOnce();
      expect(again.dropped).toEqual([]);
      expect(again.deletedRows).toBe(0);
      const later = at(clock.now().getTime());
      await gateway.test.context.requestLog.record(later);
      await gateway.test.context.requestLog.flush();
      expect((await listAll(key))[0]).toBe(later.id);
    });

    async function withClient<T>(work: (client: import('pg').PoolClient) => Promise<T>): Promise<T> {
      const client = await gateway.test.context.store.pool!.connect();
      try {
        return await work(client);
      } finally {
        client.release();
      }
    }
  });
}

const postgres = testDatabases().find((database) => database.name === 'postgres');

describe.skipIf(!postgres)('converting an existing request log on PostgreSQL', () => {
  it('keeps its rows, keeps serving and writing, and prunes a read by id to one partition', async () => {
    const { store, close } = await openTestStore(postgres!);
    try {
      const now = Date.now();
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: accountId, createdAt: new Date(now).toISOString() });
      // An unpartitioned log with rows over the last 40 days, as a deployment has it before the upgrade.
      const rows = Array.from({ length: 3_000 }, (_, index) => {
        const ms = now - 40 * dayMs + index * 1_150_000;
        return completedRecord(accountId, {
          id: createId('req', ms),
          createdAt: new Date(ms).toISOString(),
          model: index % 3 === 0 ? 'sim/gemini-model' : 'sim/openai-model',
          // A sparse end user: a row now and then over the 40 days, so that a page walks past the first days.
          endUser: index % 97 === 0 ? 'user-sparse' : index % 2 === 0 ? 'user-dense' : null,
        });
      });
      await insertRequests(store.db, rows);
      const clock = new ManualClock(now);
      const maintenance = new RequestLogMaintenance({ store, clock, logger }, { aheadDays: 2 });

      const run = await maintenance.runOnce();
      expect(run.convertedAt).toBeDefined();
      const partitions = await listPartitionsOf(store);
      expect(partitions.map((partition) => partition.name)).toEqual([formerTable, ...run.created]);
      expect(partitions[0].from).toBeUndefined();
      expect(Number((await sql<{ count: string }>`select count(*)::text as count from requests`.execute(store.db)).rows[0].count)).toBe(3_000);
      expect(Number((await sql<{ count: string }>`select count(*)::text as count from requests_before_partitions`.execute(store.db)).rows[0].count)).toBe(3_000);
      // The indexes kept their names on the parent; the status index is still partial.
      const indexes = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where tablename = 'requests' and schemaname = current_schema()`.execute(store.db);
      expect(indexes.rows.map((row) => row.indexname).sort()).toEqual(['requests_account_idx', 'requests_account_key_idx', 'requests_account_model_idx', 'requests_account_provider_idx', 'requests_account_status_idx', 'requests_batch_idx', 'requests_end_user_idx', 'requests_pkey']);
      expect(indexes.rows.find((row) => row.indexname === 'requests_account_status_idx')!.indexdef).toMatch(/WHERE \(status <> 'completed'::text\)/);

      const newest = await listRequests(store.db, { accountId }, { limit: 50 });
      expect(newest.map((row) => row.id)).toEqual(rows.slice(-50).map((row) => row.id).reverse());
      const gemini = await listRequests(store.db, { accountId, model: 'sim/gemini-model' }, { limit: 5, cursor: rows[2_999 - 10].id });
      expect(gemini.every((row) => row.model === 'sim/gemini-model' && row.id < rows[2_989].id)).toBe(true);
      expect((await findRequest(store.db, accountId, rows[17].id))?.id).toBe(rows[17].id);
      // Read a few days at a time (as the API does on PostgreSQL), a page is the same page.
      for (const [filter, page] of [
        [{ accountId }, { limit: 51 }],
        [{ accountId, model: 'sim/gemini-model' }, { limit: 700 }],
        [{ accountId }, { limit: 3_001, cursor: rows[2_000].id }],
        [{ accountId, idFrom: rows[100].id, idBefore: rows[900].id }, { limit: 2_000 }],
        [{ accountId, model: 'sim/gemini-model' }, { limit: 10, cursor: rows[50].id }],
        [{ accountId, endUser: 'user-sparse' }, { limit: 20 }],
        [{ accountId, endUser: 'user-sparse' }, { limit: 5, cursor: rows[2_000].id }],
        [{ accountId, endUser: 'user-sparse', idFrom: rows[300].id, idBefore: rows[2_500].id }, { limit: 50 }],
        [{ accountId, endUser: 'user-dense' }, { limit: 51 }],
        [{ accountId, endUser: 'user-dense' }, { limit: 1_000, cursor: rows[2_500].id }],
      ] as const) {
        const whole = await listRequests(store.db, filter, page);
        expect(whole.length).toBeGreaterThan(0);
        expect((await listRequests(store.db, filter, page, { byDays: Date.now() })).map((row) => row.id)).toEqual(whole.map((row) => row.id));
        // An end user's page past its first 8 days is read by one generic plan (the tail).
        expect((await listRequests(store.db, filter, page, { byDays: Date.now(), pool: store.pool })).map((row) => row.id)).toEqual(whole.map((row) => row.id));
      }
      // An end user no row names: every day read, nothing found, by the windows and by the tail.
      for (const options of [{ byDays: Date.now() }, { byDays: Date.now(), pool: store.pool }]) {
        expect(await listRequests(store.db, { accountId, endUser: 'user-absent' }, { limit: 51 }, options)).toEqual([]);
      }

      // New days go to partitions of their own; a second run converts nothing and adds nothing.
      clock.advance(3 * dayMs);
      const ahead = await maintenance.runOnce();
      expect(ahead.convertedAt).toBeUndefined();
      const fresh = completedRecord(accountId, { id: createId('req', clock.now().getTime()), createdAt: clock.now().toISOString() });
      expect(await insertRequests(store.db, [fresh])).toEqual([fresh.id]);
      // Written again (a batch retried after a lost commit answer): counted once, on a partitioned table too.
      expect(await insertRequests(store.db, [fresh])).toEqual([]);
      const home = await sql<{ table: string }>`select tableoid::regclass::text as table from requests where id = ${fresh.id}`.execute(store.db);
      expect(home.rows[0].table).not.toBe(formerTable);
      const plan = await sql<{ 'QUERY PLAN': string }>`explain select * from requests where account_id = ${accountId} and id = ${fresh.id}`.execute(store.db);
      const scanned = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(scanned).toContain(home.rows[0].table);
      expect(scanned).not.toContain(formerTable);
      expect((await findRequest(store.db, accountId, fresh.id))?.id).toBe(fresh.id);
      expect((await maintenance.runOnce()).created).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe.skipIf(!postgres)('converting a larger request log on PostgreSQL', () => {
  it('lets writers go on while it validates, and keeps every row written meanwhile', async () => {
    const { store, close } = await openTestStore(postgres!);
    // A connection without the request path's statement timeout: the seed and the VALIDATE take what they take.
    const client = new pg.Client({ ...store.pool!.options, query_timeout: undefined, options: String(store.pool!.options.options ?? '').replace(/-c statement_timeout=\d+/, '-c statement_timeout=0') });
    try {
      const now = Date.now();
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: accountId, createdAt: new Date(now).toISOString() });
      const ids = Array.from({ length: 200_000 }, (_, index) => createId('req', now - 30 * dayMs + index * 12_000));
      await client.connect();
      await client.query(
        `insert into requests (id, account_id, model, endpoint, status, created_at)
         select id, $2, 'sim/openai-model', '/chat/completions', 'completed', $3 from unnest($1::text[]) as id`,
        [ids, accountId, new Date(now).toISOString()],
      );
      let converting = true;
      const written: string[] = [];
      const writer = (async () => {
        while (converting) {
          const record = completedRecord(accountId);
          await insertRequests(store.db, [record]);
          written.push(record.id);
        }
      })();
      const converted = convertToPartitioned(client, now).finally(() => (converting = false));
      const started = performance.now();
      await Promise.all([converted, writer]);
      process.stdout.write(`conversion of 200,000 rows: ${Math.round(performance.now() - started)} ms, ${written.length} rows written meanwhile\n`);
      // Writes completed while it ran: the scan holds no lock that stops them, only the last
      // catalog change does, for a moment (a lock held throughout would have let at most one by).
      expect(written.length).toBeGreaterThanOrEqual(3);
      expect(await isPartitioned(client)).toBe(true);
      const count = await sql<{ count: string }>`select count(*)::text as count from requests`.execute(store.db);
      expect(Number(count.rows[0].count)).toBe(200_000 + written.length);
      expect((await findRequest(store.db, accountId, written.at(-1)!))?.id).toBe(written.at(-1));
    } finally {
      await client.end().catch(() => undefined);
      await close();
    }
  });
});

describe.skipIf(!postgres)('the request log on PostgreSQL when maintenance stops for longer than the days made ahead', () => {
  let gateway: SimulatedGateway;
  afterAll(async () => gateway?.close());

  it('catches the rows in the DEFAULT partition, charges and logs every request, then makes them a partition of their own', async () => {
    const start = Date.now();
    const clock = new ManualClock(start);
    gateway = await startSimulatedGateway({ databaseUrl: postgres!.url, clock });
    await requestLogMaintenance(gateway.test.context)?.stop();
    const { requestLog, store } = gateway.test.context;
    const maintenance = new RequestLogMaintenance({ store, clock, logger }, { retentionDays: 30, aheadDays: 3, maxDropsPerRun: 100 });
    const sqlCount = async (query: string, values: unknown[] = []) => Number((await store.pool!.query<{ count: string }>(query, values)).rows[0].count);
    const partitionsNow = async () => {
      const client = await store.pool!.connect();
      try {
        return await listPartitions(client);
      } finally {
        client.release();
      }
    };

    await maintenance.runOnce();
    const client = await store.pool!.connect();
    try {
      expect(await hasDefaultPartition(client)).toBe(true);
    } finally {
      client.release();
    }
    const horizon = (await partitionsNow()).at(-1)!.to;

    const { key, accountId } = await gateway.test.createAccount({ credits: 10 });
    const before = await readAccountMoney(gateway, accountId);
    // Every instance's maintenance "fails" for 15 days (no run; the days made ahead end ~8 days on): the
    // books go on charging and logging, each charge with its row in one transaction.
    const charged: { id: string; cost: bigint }[] = [];
    const settle = async (ms: number, cost: bigint) => {
      const record = completedRecord(accountId, { id: createId('req', ms), createdAt: new Date(ms).toISOString(), cost });
      const outcome = await requestLog.settle({ reservationId: null, accountId, keyId: null, requestId: record.id, cost }, record);
      expect(outcome.charged).toBe(cost);
      charged.push({ id: record.id, cost });
    };
    await settle(start + 60_000, 1_000n);
    for (let day = 1; day <= 15; day += 1) {
      clock.advance(dayMs);
      for (let index = 0; index < 3; index += 1) await settle(clock.now().getTime() + index * 3_600_000, BigInt(100 * day + index));
    }
    await requestLog.flush();
    const past = charged.filter((entry) => entry.id >= horizon);
    expect(past.length).toBeGreaterThanOrEqual(3 * 6);
    expect(await sqlCount(`select count(*)::text as count from ${defaultTable}`)).toBe(past.length);

    // Every row is served while it sits in the default, and the books are exact.
    const ids = [...charged].map((entry) => entry.id).reverse();
    const page = await gateway.test.app.inject({ method: 'GET', url: '/v1/requests?limit=100', headers: { authorization: `Bearer ${key}` } });
    expect((page.json() as Json).data.map((row: Json) => row.id)).toEqual(ids);
    const total = charged.reduce((sum, entry) => sum + entry.cost, 0n);
    const books = async () => {
      const money = await readAccountMoney(gateway, accountId);
      expect(money.usage - before.usage).toBe(total);
      expect(money.reserved).toBe(before.reserved);
      const ledger = await store.pool!.query<{ count: string; sum: string }>(
        "select count(*)::text as count, sum(amount)::text as sum from ledger_entries where account_id = $1 and kind = 'charge'",
        [accountId],
      );
      expect(Number(ledger.rows[0].count)).toBe(charged.length);
      expect(BigInt(ledger.rows[0].sum)).toBe(total);
      const logged = await store.pool!.query<{ count: string; sum: string }>('select count(*)::text as count, sum(cost)::text as sum from requests where account_id = $1', [accountId]);
      expect(Number(logged.rows[0].count)).toBe(charged.length);
      expect(BigInt(logged.rows[0].sum)).toBe(total);
    };
    await books();

    // Maintenance runs again: the caught rows become one partition, from the old horizon to past
    // now; the days ahead follow it; the default is empty again and every row is in the
    // partition whose bounds hold its id.
    const caughtUp = await maintenance.runOnce();
    expect(caughtUp.adopted).toMatch(/^requests_\d{8}_\d{8}$/);
    expect(caughtUp.created.length).toBeGreaterThan(0);
    expect(await sqlCount(`select count(*)::text as count from ${defaultTable}`)).toBe(0);
    const partitions = await partitionsNow();
    const adopted = partitions.find((partition) => partition.name === caughtUp.adopted)!;
    expect(adopted.from).toBe(horizon);
    expect(partitions.at(-1)!.to > createId('req', clock.now().getTime() + 3 * dayMs)).toBe(true);
    const homes = await store.pool!.query<{ id: string; home: string }>('select id, tableoid::regclass::text as home from requests where account_id = $1', [accountId]);
    expect(homes.rows.length).toBe(charged.length);
    for (const row of homes.rows) {
      const home = partitions.find((partition) => partition.name === row.home);
      expect(home, row.id).toBeDefined();
      expect((home!.from ?? '') <= row.id && row.id < home!.to).toBe(true);
      expect(row.home === caughtUp.adopted).toBe(row.id >= horizon);
    }
    await books();
    const again = await gateway.test.app.inject({ method: 'GET', url: `/v1/requests/${past[0].id}`, headers: { authorization: `Bearer ${key}` } });
    expect((again.json() as Json).data.id).toBe(past[0].id);

    // The next days land in day partitions again; a later run adopts nothing.
    clock.advance(3 * dayMs);
    await settle(clock.now().getTime(), 7n);
    await requestLog.flush();
    const next = await store.pool!.query<{ home: string }>('select tableoid::regclass::text as home from requests where id = $1', [charged.at(-1)!.id]);
    expect(next.rows[0].home).toMatch(/^requests_\d{8}$/);
    expect((await maintenance.runOnce()).adopted).toBeUndefined();

    // The retention drops the adopted partition whole once its newest day is past it, beside the
    // default (a plain DETACH: PostgreSQL refuses CONCURRENTLY there); the usage stays.
    clock.advance(40 * dayMs);
    const dropped = await maintenance.runOnce();
    expect(dropped.dropped).toContain(caughtUp.adopted);
    expect(await sqlCount('select count(*)::text as count from requests where account_id = $1', [accountId])).toBe(0);
    const money = await readAccountMoney(gateway, accountId);
    expect(money.usage - before.usage).toBe(total + 7n);
  });
});

describe.skipIf(!postgres)('adopting a large default partition on PostgreSQL', () => {
  it('lets writers go on while it validates, and keeps every row written meanwhile', async () => {
    const { store, close } = await openTestStore(postgres!);
    const client = new pg.Client({ ...store.pool!.options, query_timeout: undefined, options: String(store.pool!.options.options ?? '').replace(/-c statement_timeout=\d+/, '-c statement_timeout=0') });
    try {
      const now = Date.now();
      const accountId = createId('acc');
      await insertAccount(store.db, { id: accountId, name: accountId, createdAt: new Date(now).toISOString() });
      await client.connect();
      await convertToPartitioned(client, now);
      await createPartitionsAhead(client, now + 2 * dayMs);
      await new RequestLogMaintenance({ store, clock: new ManualClock(now), logger }, { aheadDays: 1 }).runOnce();
      // Ten days past the partitions made: 200,000 rows the default caught.
      const from = now + 10 * dayMs;
      const ids = Array.from({ length: 200_000 }, (_, index) => createId('req', from + index * 2_000));
      await client.query(
        `insert into requests (id, account_id, model, endpoint, status, created_at)
         select id, $2, 'sim/openai-model', '/chat/completions', 'completed', $3 from unnest($1::text[]) as id`,
        [ids, accountId, new Date(now).toISOString()],
      );
      expect(Number((await client.query<{ count: string }>(`select count(*)::text as count from ${defaultTable}`)).rows[0].count)).toBe(200_000);
      let adopting = true;
      const written: string[] = [];
      const writer = (async () => {
        let at = from + 200_000 * 2_000;
        while (adopting) {
          const record = completedRecord(accountId, { id: createId('req', (at += 1_000)) });
          await insertRequests(store.db, [record]);
          written.push(record.id);
        }
      })();
      const adopted = adoptDefaultRows(client, now).finally(() => (adopting = false));
      const started = performance.now();
      const [result] = await Promise.all([adopted, writer]);
      process.stdout.write(`adoption of 200,000 rows: ${Math.round(performance.now() - started)} ms, ${written.length} rows written meanwhile\n`);
      // Writes completed while it ran: the VALIDATE holds no lock that stops them, only the swap does, for a moment.
      expect(written.length).toBeGreaterThanOrEqual(3);
      expect(result.adopted).toBeDefined();
      const homes = await client.query<{ home: string; count: string }>('select tableoid::regclass::text as home, count(*)::text as count from requests group by 1');
      expect(homes.rows).toEqual([{ home: result.adopted, count: String(200_000 + written.length) }]);
      expect((await findRequest(store.db, accountId, written.at(-1)!))?.id).toBe(written.at(-1));
      expect(await hasDefaultPartition(client)).toBe(true);
    } finally {
      await client.end().catch(() => undefined);
      await close();
    }
  });
});

async function listPartitionsOf(store: { pool?: import('pg').Pool }) {
  const client = await store.pool!.connect();
  try {
    return await listPartitions(client);
  } finally {
    client.release();
  }
}
