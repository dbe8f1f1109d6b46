import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/helpers/manual-clock.js';
import { openTestStore, type TestStore } from '../../../test/helpers/open-test-store.js';
import { testDatabases } from '../../../test/helpers/test-databases.js';
import { StoredResponseWriter } from './stored-response-writer.js';

/** Counts the INSERT statements a Kysely instance runs. */
function countInserts(): KyselyPlugin & { inserts: number } {
  const plugin = {
    inserts: 0,
    transformQuery: (args: { node: unknown }) => {
      if (InsertQueryNode.is(args.node as never)) plugin.inserts += 1;
      return args.node as never;
    },
    transformResult: async (args: { result: unknown }) => args.result as never,
  };
  return plugin;
}

describe.each(testDatabases())('StoredResponseWriter on $name', (database) => {
  let test: TestStore;
  let accountId: string;
  beforeAll(async () => {
    test = await openTestStore(database);
    accountId = 'acct_writer';
    await test.store.db.insertInto('accounts').values({ id: accountId, name: 'w', created_at: new Date().toISOString(), total_credits: 0n, total_usage: 0n, reserved: 0n }).execute();
  });
  afterAll(async () => test?.close());

  const record = (id: string, expiresAt: string) => ({
    id, accountId, apiKeyId: 'key_1', model: 'm', inputItems: '[]', response: '{}', createdAt: '2026-11-25T00:00:00.000Z', expiresAt,
  });

  it('group-commits concurrent writes (a batch starts when the previous ends) and resolves each once committed', async () => {
    const plugin = countInserts();
    const clock = new ManualClock(Date.parse('2026-11-25T00:00:00.000Z'));
    const writer = new StoredResponseWriter({ store: { ...test.store, db: test.store.db.withPlugin(plugin) }, clock, logger: pino({ level: 'silent' }) });
    await Promise.all(Array.from({ length: 50 }, (_, index) => writer.write(record(`r_${index}`, '2026-12-25T00:00:00.000Z'))));
    const rows = await test.store.db.selectFrom('stored_responses').select('id').execute();
    expect(rows).toHaveLength(50);
    // The first write goes alone at once; the 49 that queued meanwhile share the next insert.
    expect(plugin.inserts).toBe(2);
  });

  it('sweeps expired rows by its clock', async () => {
    const clock = new ManualClock(Date.parse('2026-11-25T00:00:00.000Z'));
    const writer = new StoredResponseWriter({ store: test.store, clock, logger: pino({ level: 'silent' }) });
    await writer.write(record('old', '2026-11-25T00:00:10.000Z'));
    // The sweep after that first batch saw nothing expired yet.
    expect(await writer.sweep()).toBe(0);
    clock.advance(20_000);
    expect(await writer.sweep()).toBe(1);
    const left = await test.store.db.selectFrom('stored_responses').select('id').where('id', '=', 'old').execute();
    expect(left).toEqual([]);
  });
});
