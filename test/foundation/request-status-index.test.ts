import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord, RequestStatus } from '../../src/billing/request-record.js';
import { createId } from '../../src/core/ids.js';
import type { Store } from '../../src/store/create-store.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';
import { insertRequests, listRequests, requestsQuery } from '../../src/billing/db/requests.js';
import { openTestStore } from '../helpers/open-test-store.js';
import { testDatabases } from '../helpers/test-databases.js';

const start = Date.parse('2026-11-26T12:00:00.000Z');

function record(accountId: string, at: number, status: RequestStatus): RequestRecord {
  return {
    id: createId('req', at),
    accountId,
    keyId: null,
    model: 'sim/openai-model',
    provider: status === 'refused' ? null : 'sim-openai',
    endpoint: '/chat/completions',
    streamed: false,
    status,
    errorCode: status === 'completed' ? null : status === 'refused' ? 'insufficient_balance' : 'upstream_error',
    latencyMs: 10,
    promptTokens: 1,
    completionTokens: status === 'completed' ? 1 : 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost: status === 'completed' ? 700n : 0n,
    estimated: false,
    createdAt: new Date(at).toISOString(),
  };
}

// The status index holds only the rare statuses (migration 2026-11-26-1500): a completed request
// is written into one B-tree fewer, and a listing by a rare status still reads that index.
for (const database of testDatabases()) {
  describe(`request log status index on ${database.name}`, () => {
    let store: Store;
    let close: (() => Promise<void>) | undefined;
    const accountId = createId('acc');
    const otherId = createId('acc');
    const statuses: RequestStatus[] = [];

    beforeAll(async () => {
      ({ store, close } = await openTestStore(database));
      for (const id of [accountId, otherId]) await insertAccount(store.db, { id, name: id, createdAt: new Date(start).toISOString() });
      const rows: RequestRecord[] = [];
      for (let index = 0; index < 200; index += 1) {
        const status: RequestStatus = index % 50 === 7 ? 'failed' : index % 50 === 31 ? 'refused' : index === 120 ? 'aborted' : 'completed';
        statuses.push(status);
        rows.push(record(accountId, start + index, status));
        rows.push(record(otherId, start + index, index % 2 === 0 ? 'failed' : 'completed'));
      }
      await insertRequests(store.db, rows);
    });
    afterAll(async () => {
      await close?.();
    });

    it('indexes only the requests that did not complete', async () => {
      if (database.name === 'sqlite') {
        const definition = await sql<{ sql: string }>`select sql from sqlite_master where name = 'requests_account_status_idx'`.execute(store.db);
        expect(definition.rows[0].sql).toMatch(/where\s+"status"\s*<>\s*'completed'/i);
      } else {
        const definition = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'requests_account_status_idx' and schemaname = current_schema()`.execute(store.db);
        expect(definition.rows[0].indexdef).toMatch(/WHERE \(status <> 'completed'::text\)/);
      }
    });

    it('lists each status of one account, newest first, whichever index serves it', async () => {
      for (const status of ['completed', 'failed', 'refused', 'aborted'] as const) {
        const listed = await listRequests(store.db, { accountId, status }, { limit: 500 });
        const expected = statuses.filter((each) => each === status).length;
        expect(listed).toHaveLength(expected);
        expect(listed.every((row) => row.status === status && row.accountId === accountId)).toBe(true);
        expect(listed.map((row) => row.id)).toEqual([...listed.map((row) => row.id)].sort().reverse());
      }
      const page = await listRequests(store.db, { accountId, status: 'completed' }, { limit: 5 });
      const next = await listRequests(store.db, { accountId, status: 'completed' }, { limit: 5, cursor: page[4].id });
      expect(next[0].id < page[4].id).toBe(true);
    });

    it.runIf(database.name === 'sqlite')('reads the partial index for a rare status on SQLite', async () => {
      const plan = (filter: { status: RequestStatus }) => {
        const compiled = requestsQuery(store.db, { accountId, ...filter }, { limit: 50 }).compile();
        const rows = store.sqlite!.prepare(`explain query plan ${compiled.sql}`).all(...(compiled.parameters as unknown[])) as Array<{ detail: string }>;
        return rows.map((row) => row.detail).join('; ');
      };
      expect(plan({ status: 'failed' })).toContain('requests_account_status_idx');
      expect(plan({ status: 'refused' })).toContain('requests_account_status_idx');
      // Completed requests are not in it: their listing reads the account's rows in id order.
      expect(plan({ status: 'completed' })).not.toContain('requests_account_status_idx');
    });
  });
}
