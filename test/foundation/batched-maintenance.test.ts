import { DeleteQueryNode, type KyselyPlugin, type Kysely } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredResponseWriter } from '../../src/api/responses/stored-response-writer.js';
import { Ledger, sweepReleaseBatch } from '../../src/billing/ledger.js';
import { createId } from '../../src/core/ids.js';
import { mediaSweepBatch, sweepExpiredMediaFiles } from '../../src/media/media-files.js';
import type { Database } from '../../src/store/database.js';
import { insertMediaFiles } from '../../src/store/repositories/media-files.js';
import { insertStoredResponses } from '../../src/store/repositories/stored-responses.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * Issue 54: maintenance never holds the event loop. Each sweep deletes in statements of a bounded
 * size and lets the event loop turn between them, and runs until everything due is done. The
 * turns are counted by a setImmediate chain: on SQLite, statements run on the main thread, so a
 * sweep without yields would run every batch within one turn.
 */
function countTurns(): { now(): number; stop(): void } {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns += 1;
    setImmediate(spin);
  };
  setImmediate(spin);
  return { now: () => turns, stop: () => (running = false) };
}

/** The DELETE statements a Kysely instance runs: rows each removed, and the turn it ran in. */
function recordDeletes(db: Kysely<Database>, turn: () => number): { db: Kysely<Database>; deletes: { rows: number; turn: number }[] } {
  const deletes: { rows: number; turn: number }[] = [];
  const pending = new Map<unknown, { rows: number; turn: number }>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (DeleteQueryNode.is(args.node)) pending.set(args.queryId, { rows: 0, turn: turn() });
      return args.node;
    },
    transformResult: async (args) => {
      const entry = pending.get(args.queryId);
      if (entry) {
        entry.rows = Number(args.result.numAffectedRows ?? 0n);
        deletes.push(entry);
      }
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), deletes };
}

function expectBatched(deletes: { rows: number; turn: number }[], batch: number, total: number, sqlite: boolean): void {
  expect(deletes.reduce((sum, entry) => sum + entry.rows, 0)).toBe(total);
  expect(deletes.length).toBeGreaterThanOrEqual(Math.ceil(total / batch));
  for (const entry of deletes) expect(entry.rows).toBeLessThanOrEqual(batch);
  // The event loop turned between every two statements (on PostgreSQL the round trips do that anyway).
  if (sqlite) for (let index = 1; index < deletes.length; index += 1) expect(deletes[index].turn).toBeGreaterThan(deletes[index - 1].turn);
}

describe.each(testDatabases())('batched maintenance on $name', (database) => {
  let test: TestStore;
  const accountId = 'acct_batched';
  const sqlite = database.name === 'sqlite';
  const start = Date.parse('2026-11-25T00:00:00.000Z');
  beforeAll(async () => {
    test = await openTestStore(database);
    await test.store.db.insertInto('accounts').values({ id: accountId, name: 'batched', created_at: new Date(start).toISOString(), total_credits: 10_000n, total_usage: 0n, reserved: 0n }).execute();
  });
  afterAll(async () => test?.close());

  it('sweeps expired stored responses in statements of at most 100 rows, yielding between them, until none is due', async () => {
    const record = (id: string, expiresAt: number) => ({
      id, accountId, apiKeyId: 'key_1', model: 'm', inputItems: '[]', response: '{}', createdAt: new Date(start).toISOString(), expiresAt: new Date(expiresAt).toISOString(),
    });
    const due = Array.from({ length: 250 }, (_, index) => record(`resp_due_${index}`, start + 60_000));
    for (let from = 0; from < due.length; from += 50) await insertStoredResponses(test.store.db, due.slice(from, from + 50));
    await insertStoredResponses(test.store.db, [record('resp_live', start + 86_400_000)]);
    const clock = new ManualClock(start);
    const turns = countTurns();
    const recorded = recordDeletes(test.store.db, turns.now);
    const writer = new StoredResponseWriter({ store: { ...test.store, db: recorded.db }, clock, logger: pino({ level: 'silent' }) });
    expect(await writer.sweep()).toBe(0);
    clock.advance(120_000);
    expect(await writer.sweep()).toBe(250);
    turns.stop();
    expectBatched(recorded.deletes.filter((entry) => entry.rows > 0), 100, 250, sqlite);
    expect((await test.store.db.selectFrom('stored_responses').select('id').execute()).map((row) => row.id)).toEqual(['resp_live']);
  });

  it('sweeps expired media files 10 to a statement, at most 100 per call, yielding between them', async () => {
    const file = (id: string, expiresAt: number) => ({
      id, accountId, requestId: 'req_1', contentType: 'image/png', data: Buffer.alloc(64, 1), createdAt: new Date(start).toISOString(), expiresAt: new Date(expiresAt).toISOString(),
    });
    const due = Array.from({ length: 105 }, (_, index) => file(`file_due_${index}`, start + 1_000));
    for (let from = 0; from < due.length; from += 35) await insertMediaFiles(test.store.db, due.slice(from, from + 35));
    await insertMediaFiles(test.store.db, [file('file_live', start + 86_400_000)]);
    const clock = new ManualClock(start);
    clock.advance(60_000);
    const turns = countTurns();
    const recorded = recordDeletes(test.store.db, turns.now);
    const first = await sweepExpiredMediaFiles({ store: { ...test.store, db: recorded.db } }, clock.now().toISOString());
    const second = await sweepExpiredMediaFiles({ store: { ...test.store, db: recorded.db } }, clock.now().toISOString());
    turns.stop();
    expect(first).toEqual({ done: 100, batches: 10 });
    expect(second).toEqual({ done: 5, batches: 1 });
    expectBatched(recorded.deletes.slice(0, 10), mediaSweepBatch, 100, sqlite);
    expect((await test.store.db.selectFrom('media_files').select('id').execute()).map((row) => row.id)).toEqual(['file_live']);
  });

  it('releases expired reservations with a yield every 50 releases, driven by the clock, books exact', async () => {
    const clock = new ManualClock(start);
    const amount = 7n;
    const count = 180;
    const rows = Array.from({ length: count }, (_, index) => ({
      id: `res_due_${index}`, account_id: accountId, key_id: null, request_id: `req_${index}`, amount,
      created_at: new Date(start).toISOString(), expires_at: new Date(start + 60_000).toISOString(), instance_id: null,
    }));
    await test.store.db.insertInto('reservations').values(rows).execute();
    await test.store.db.updateTable('accounts').set({ reserved: amount * BigInt(count) }).where('id', '=', accountId).execute();
    const ledger = new Ledger({ store: test.store, clock, createId }, { instanceId: createId('ins'), instanceTimeoutMs: 60_000 });
    await ledger.startInstance();
    expect(await ledger.sweep()).toBe(0);
    clock.advance(120_000);
    // What is left, read at every turn of the event loop while the sweep runs (synchronously on SQLite).
    const left: number[] = [];
    const remaining = test.store.sqlite?.prepare("select count(*) as n from reservations where id like 'res_due_%'");
    let sampling = true;
    const sample = () => {
      if (!sampling) return;
      if (remaining) left.push(Number((remaining.get() as { n: bigint }).n));
      setImmediate(sample);
    };
    setImmediate(sample);
    expect(await ledger.sweep()).toBe(count);
    sampling = false;
    if (sqlite) {
      // The first turn came after one batch at most, and every batch left a turn after it.
      const seen = [count, ...left];
      const steps = seen.slice(1).map((value, index) => seen[index] - value);
      expect(Math.max(...steps)).toBeLessThanOrEqual(sweepReleaseBatch);
      expect(new Set(left.filter((value) => value > 0)).size).toBeGreaterThanOrEqual(Math.ceil(count / sweepReleaseBatch) - 1);
    }
    const account = await test.store.db.selectFrom('accounts').select('reserved').where('id', '=', accountId).executeTakeFirstOrThrow();
    expect(BigInt(account.reserved)).toBe(0n);
    await ledger.stopInstance();
  });
});
