import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertBatch, listBatches, type BatchKind } from '../../src/batches/db/batches.js';
import { listMessageBatches } from '../../src/batches/db/message-batches.js';
import { createId } from '../../src/core/ids.js';
import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { migrations } from '../../src/store/migrations/index.js';
import { insertAccount } from '../../src/store/repositories/accounts.js';
import { dropTestSchema, testDatabases, uniqueSchemaName } from '../helpers/test-databases.js';

const start = Date.parse('2026-12-08T00:00:00.000Z');

async function addBatch(store: Store, accountId: string, kind: BatchKind, at: number, insert = insertBatch): Promise<string> {
  const id = createId(kind === 'message_batch' ? 'msgbatch' : 'batch', at);
  await insert(store.db, {
    id,
    accountId,
    keyId: 'key_test',
    endpoint: kind === 'message_batch' ? '/v1/messages' : '/v1/chat/completions',
    inputFileId: 'file_test',
    completionWindow: '24h',
    metadata: null,
    createdAt: new Date(at).toISOString(),
    expiresAt: new Date(at + 86_400_000).toISOString(),
    kind,
  });
  return id;
}

/**
 * `batches.kind` (migration 2026-12-08-0300): an account with many Message Batches and a few
 * OpenAI batches pages both lists correctly, each over the index `(account_id, kind, id)`; rows
 * made before the migration are backfilled from their id prefix. On SQLite and PostgreSQL.
 */
for (const database of testDatabases()) {
  describe(`batch kinds on ${database.name}`, () => {
    const schema = database.name === 'postgres' ? uniqueSchemaName() : undefined;
    let store: Store;
    const accountId = createId('acc');
    const otherId = createId('acc');
    const openai: string[] = [];
    const message: string[] = [];
    let before: { batch: string; message: string };

    beforeAll(async () => {
      store = await createStore(database.url, { schema, poolSize: 4 });
      // Up to the migration before `kind`: two batches made then, to be backfilled.
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true, migrationTableSchema: schema });
      const { error } = await migrator.migrateTo('2026-12-08-0040-provider-batch-lines');
      if (error) throw error;
      for (const id of [accountId, otherId]) await insertAccount(store.db, { id, name: id, createdAt: new Date(start).toISOString() });
      const withoutKind: typeof insertBatch = async (db, { kind: _kind, ...batch }) => {
        await sql`insert into batches (id, account_id, key_id, endpoint, input_file_id, completion_window, status, created_at, expires_at)
          values (${batch.id}, ${batch.accountId}, ${batch.keyId}, ${batch.endpoint}, ${batch.inputFileId}, ${batch.completionWindow}, 'validating', ${batch.createdAt}, ${batch.expiresAt})`.execute(db);
      };
      before = { batch: await addBatch(store, accountId, 'batch', start - 2, withoutKind), message: await addBatch(store, accountId, 'message_batch', start - 1, withoutKind) };
      await migrateToLatest(store);
      openai.push(before.batch);
      message.push(before.message);
      // 300 Message Batches with 4 OpenAI batches among them, and the other account's of both kinds.
      for (let index = 0; index < 304; index += 1) {
        const kind: BatchKind = index % 76 === 40 ? 'batch' : 'message_batch';
        (kind === 'batch' ? openai : message).push(await addBatch(store, accountId, kind, start + index));
        if (index % 50 === 0) await addBatch(store, otherId, index % 100 === 0 ? 'batch' : 'message_batch', start + index);
      }
    });
    afterAll(async () => {
      await store?.close();
      if (schema) await dropTestSchema(database.url, schema);
    });

    it('backfills the kind of batches made before the migration from their id', async () => {
      const rows = await store.db.selectFrom('batches').select(['id', 'kind']).where('id', 'in', [before.batch, before.message]).execute();
      expect(Object.fromEntries(rows.map((row) => [row.id, row.kind]))).toEqual({ [before.batch]: 'batch', [before.message]: 'message_batch' });
    });

    it('pages the OpenAI batch list over its own batches only, newest first', async () => {
      const listed: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await listBatches(store.db, accountId, { limit: 3, after });
        listed.push(...page.map((batch) => batch.id));
        if (page.length < 3) break;
        after = page[page.length - 1].id;
      }
      expect(listed).toEqual([...openai].reverse());
    });

    it('pages the Message Batch list over its own batches only, both ways', async () => {
      const listed: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await listMessageBatches(store.db, accountId, { limit: 40, afterId });
        listed.push(...page.rows.map((batch) => batch.id));
        if (!page.hasMore) break;
        afterId = page.rows[page.rows.length - 1].id;
      }
      expect(listed).toEqual([...message].reverse());
      const newer = await listMessageBatches(store.db, accountId, { limit: 5, beforeId: message[10] });
      expect(newer.rows.map((batch) => batch.id)).toEqual(message.slice(11, 16).reverse());
      expect(newer.rows.every((batch) => batch.accountId === accountId && batch.endpoint === '/v1/messages')).toBe(true);
    });

    it.runIf(database.name === 'sqlite')('reads the index (account_id, kind, id) for both lists on SQLite', async () => {
      const plan = (query: string) =>
        (store.sqlite!.prepare(`explain query plan ${query}`).all(accountId) as Array<{ detail: string }>).map((row) => row.detail).join('; ');
      expect(plan(`select * from batches where account_id = ? and kind = 'batch' order by id desc limit 21`)).toContain('batches_account_kind_idx');
      expect(plan(`select id from batches where account_id = ? and kind = 'message_batch' order by id desc limit 21`)).toContain('batches_account_kind_idx');
    });
  });
}
