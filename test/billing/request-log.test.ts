import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/billing/request-log.js';
import { createId } from '../../src/core/ids.js';
import type { Store } from '../../src/store/create-store.js';
import type { RequestRecord } from '../../src/billing/request-record.js';
import { openTestStore } from '../helpers/open-test-store.js';
import { createAccount } from '../../src/accounts/create-account.js';
import { systemClock } from '../../src/core/clock.js';
import { testDatabases } from '../helpers/test-databases.js';

const silent = pino({ level: 'silent' });
const day = (offset: number) => Date.UTC(2026, 10, 1 + offset, 12);

function row(accountId: string, overrides: Partial<RequestRecord> & { at?: number } = {}): RequestRecord {
  const { at = day(0), ...fields } = overrides;
  return {
    id: createId('req', at),
    accountId,
    keyId: 'key_a',
    model: 'acme/chat',
    provider: 'sim',
    endpoint: '/chat/completions',
    streamed: false,
    status: 'completed',
    errorCode: null,
    latencyMs: 12,
    promptTokens: 10,
    completionTokens: 20,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost: 1_000n,
    estimated: false,
    createdAt: new Date(at).toISOString(),
    ...fields,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await sleep(5);
  }
}

for (const database of testDatabases()) {
  describe(`request log writer on ${database.name}`, () => {
    let store: Store;
    let closeStore: (() => Promise<void>) | undefined;
    const logs: RequestLog[] = [];
    const open = (options: ConstructorParameters<typeof RequestLog>[1] = {}, logger = silent) => {
      const log = new RequestLog({ store, logger }, options);
      logs.push(log);
      return log;
    };

    // A real database fault in the middle of the batch's transaction: the request rows are in,
    // then the rollup upsert fails, so the whole batch must roll back and be retried.
    const breakRollups = async () => {
      if (store.dialect === 'sqlite') {
        await sql`create trigger fail_rollups before insert on usage_rollups begin select raise(abort, 'injected failure'); end`.execute(store.db);
      } else {
        await sql.raw(`create or replace function fail_rollups() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`).execute(store.db);
        await sql`create trigger fail_rollups before insert on usage_rollups for each row execute function fail_rollups()`.execute(store.db);
      }
    };
    const repairRollups = async () => {
      if (store.dialect === 'sqlite') await sql`drop trigger if exists fail_rollups`.execute(store.db);
      else await sql`drop trigger if exists fail_rollups on usage_rollups`.execute(store.db);
    };

    const countRequests = async (accountId: string) =>
      Number((await store.db.selectFrom('requests').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);
    const rollups = (accountId: string) =>
      store.db.selectFrom('usage_rollups').selectAll().where('account_id', '=', accountId).orderBy('day').orderBy('key_id').orderBy('model').execute();

    beforeAll(async () => {
      ({ store, close: closeStore } = await openTestStore(database));
    });
    afterEach(async () => {
      await repairRollups();
      for (const log of logs.splice(0)) await log.close(1000);
    });
    afterAll(async () => {
      await closeStore?.();
    });

    it('writes in batches and keeps the rollups equal to the rows, per day, key, model and provider', async () => {
      const accountId = createId('acc');
      const log = open({ batchSize: 100, flushIntervalMs: 10 });
      const records: RequestRecord[] = [];
      for (let index = 0; index < 1_050; index += 1) {
        records.push(
          row(accountId, {
            at: day(index % 3),
            keyId: index % 2 === 0 ? 'key_a' : 'key_b',
            model: index % 5 === 0 ? 'acme/big' : 'acme/chat',
            promptTokens: index,
            completionTokens: 2 * index,
            cost: BigInt(index) * 1_000_003n,
          }),
        );
      }
      for (let index = 0; index < 20; index += 1) records.push(row(accountId, { provider: null, status: 'refused', errorCode: 'insufficient_balance', cost: 0n }));
      for (const record of records) await log.record(record);
      await log.flush();

      expect(await countRequests(accountId)).toBe(1_070);
      expect(log.stats()).toMatchObject({ queued: 0, waiting: 0, written: 1_070, failedWrites: 0 });
      expect(log.stats().batches).toBeGreaterThanOrEqual(11);

      const expected = new Map<string, { requests: number; prompt: bigint; completion: bigint; cost: bigint }>();
      for (const record of records.filter((candidate) => candidate.provider !== null)) {
        const key = `${record.createdAt.slice(0, 10)}|${record.keyId}|${record.model}|${record.provider}`;
        const sum = expected.get(key) ?? { requests: 0, prompt: 0n, completion: 0n, cost: 0n };
        sum.requests += 1;
        sum.prompt += BigInt(record.promptTokens);
        sum.completion += BigInt(record.completionTokens);
        sum.cost += record.cost;
        expected.set(key, sum);
      }
      const actual = new Map(
        (await rollups(accountId)).map((rollup) => [
          `${rollup.day}|${rollup.key_id}|${rollup.model}|${rollup.provider}`,
          { requests: Number(rollup.requests), prompt: BigInt(rollup.prompt_tokens), completion: BigInt(rollup.completion_tokens), cost: BigInt(rollup.cost) },
        ]),
      );
      expect(actual).toEqual(expected);
    });

    it('writes a partial batch after the flush interval, without being asked', async () => {
      const accountId = createId('acc');
      const log = open({ batchSize: 100, flushIntervalMs: 20 });
      for (let index = 0; index < 3; index += 1) await log.record(row(accountId));
      await waitFor(() => log.stats().written === 3);
      expect(await countRequests(accountId)).toBe(3);
    });

    it('with other paid calls under way, a settlement waits one event-loop turn for the ones that follow, into one commit (SQLite); alone, it does not wait', async () => {
      const { account } = await createAccount({ store, clock: systemClock, createId }, { credits: 1_000_000n });
      const accountId = account.id;
      const settleTwoTurnsApart = async (log: RequestLog) => {
        const first = row(accountId, { cost: 5n });
        const second = row(accountId, { cost: 6n });
        const settled = [log.settle({ reservationId: null, accountId, keyId: null, requestId: first.id, cost: 5n }, first)];
        // The next settlement arrives one turn later, as an answer read in the next poll of the loop would.
        await new Promise((resolve) => setImmediate(resolve));
        settled.push(log.settle({ reservationId: null, accountId, keyId: null, requestId: second.id, cost: 6n }, second));
        const outcomes = await Promise.all(settled);
        expect(outcomes.map((outcome) => outcome.charged)).toEqual([5n, 6n]);
        return log.stats().batches;
      };
      let underWay = 1;
      const waiting = new RequestLog({ store, logger: silent, callsUnderWay: () => underWay });
      logs.push(waiting);
      // On PostgreSQL, settlements gather while a batch is in flight instead: no extra turn.
      const waited = store.dialect === 'sqlite' ? 1 : 2;
      expect(await settleTwoTurnsApart(waiting)).toBe(waited);
      underWay = 0;
      // None under way: each settlement is written at the end of its own turn.
      expect(await settleTwoTurnsApart(waiting)).toBe(waited + 2);
      const alone = open();
      expect(await settleTwoTurnsApart(alone)).toBe(2);
      const charges = await store.db.selectFrom('ledger_entries').select('amount').where('account_id', '=', accountId).where('kind', '=', 'charge').execute();
      expect(charges.map((entry) => BigInt(entry.amount)).sort()).toEqual([5n, 5n, 5n, 6n, 6n, 6n]);
    });

    it('counts a row written twice (a retried batch whose commit did land) once', async () => {
      const accountId = createId('acc');
      const log = open();
      const record = row(accountId);
      await log.record(record);
      await log.flush();
      await log.record(record);
      await log.record(record);
      await log.flush();
      expect(await countRequests(accountId)).toBe(1);
      expect((await rollups(accountId)).map((rollup) => Number(rollup.requests))).toEqual([1]);
    });

    it('retries a batch after a database error without losing or double-counting a row', async () => {
      const accountId = createId('acc');
      const log = open({ batchSize: 50, flushIntervalMs: 5, retryDelayMs: 20 });
      await breakRollups();
      for (let index = 0; index < 120; index += 1) await log.record(row(accountId, { cost: 7n }));
      await waitFor(() => log.stats().failedWrites >= 2);
      // The failing transaction rolled back its request rows too.
      expect(await countRequests(accountId)).toBe(0);
      expect(log.stats().queued).toBe(120);
      await repairRollups();
      await log.flush();
      expect(await countRequests(accountId)).toBe(120);
      const [rollup] = await rollups(accountId);
      expect(Number(rollup.requests)).toBe(120);
      expect(BigInt(rollup.cost)).toBe(840n);
    });

    it('applies backpressure when the queue is full: record() waits for room, nothing is dropped', async () => {
      const accountId = createId('acc');
      const log = open({ batchSize: 2, capacity: 4, flushIntervalMs: 5, retryDelayMs: 20 });
      await breakRollups();
      const admitted: boolean[] = [];
      const pending: Promise<void>[] = [];
      for (let index = 0; index < 7; index += 1) {
        const promise = log.record(row(accountId));
        pending.push(promise);
        void promise.then(() => {
          admitted[index] = true;
        });
      }
      await sleep(150);
      expect(admitted.filter(Boolean)).toHaveLength(4);
      expect(log.stats()).toMatchObject({ queued: 4, waiting: 3, written: 0 });
      await repairRollups();
      await Promise.all(pending);
      await log.flush();
      expect(await countRequests(accountId)).toBe(7);
      expect(log.stats()).toMatchObject({ queued: 0, waiting: 0, written: 7 });
    });

    it('flushes on close; when the database stays down, logs every unwritten row instead of losing it silently', async () => {
      const accountId = createId('acc');
      const flushed = open({ flushIntervalMs: 10_000 });
      for (let index = 0; index < 5; index += 1) await flushed.record(row(accountId));
      await flushed.close();
      expect(await countRequests(accountId)).toBe(5);

      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
      const stuck = open({ flushIntervalMs: 10_000, retryDelayMs: 20 }, logger);
      await breakRollups();
      const lost = row(accountId);
      await stuck.record(lost);
      await stuck.close(200);
      const report = lines.map((line) => JSON.parse(line)).find((entry) => /not confirmed written/.test(entry.msg));
      expect(report.rows.map((entry: { id: string }) => entry.id)).toEqual([lost.id]);
      await stuck.record(row(accountId));
      expect(lines.some((line) => /request log closed/.test(line))).toBe(true);
    });
  });
}
