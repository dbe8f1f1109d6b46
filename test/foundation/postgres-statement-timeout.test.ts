import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { dropTestSchema, uniqueSchemaName } from '../helpers/test-databases.js';

/**
 * Issue 54 on PostgreSQL: a request-path query that runs past the statement timeout
 * (`SWITCHYARD_PG_STATEMENT_TIMEOUT_MS`) is cancelled by the server and answered with the 503
 * envelope, and the gateway goes on serving; migrations and online index builds, which may
 * legitimately run long, are not bound by it.
 */
const url = process.env.TEST_DATABASE_URL;

/** A session of its own in `schema` that holds a table lock until `release`. */
async function holdLock(schema: string, statement: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path="${schema}"` });
  await client.connect();
  await client.query('begin');
  await client.query(statement);
  return {
    async release() {
      await client.query('commit');
      await client.end();
    },
  };
}

describe.skipIf(!url)('PostgreSQL statement timeout', () => {
  let gateway: SimulatedGateway;
  const saved = process.env.SWITCHYARD_PG_STATEMENT_TIMEOUT_MS;
  beforeAll(async () => {
    process.env.SWITCHYARD_PG_STATEMENT_TIMEOUT_MS = '300';
    gateway = await startSimulatedGateway({ databaseUrl: url });
  });
  afterAll(async () => {
    process.env.SWITCHYARD_PG_STATEMENT_TIMEOUT_MS = saved;
    await gateway?.close();
  });

  it('cancels a request-path query held past the timeout and answers 503 in the envelope; the next request is served', async () => {
    const admin = (path: string) => sendJson(gateway, gateway.test.adminToken, 'GET', path);
    const lock = await holdLock(gateway.test.context.store.schema!, 'lock table accounts in access exclusive mode');
    const started = Date.now();
    let answer: Response;
    try {
      answer = await admin('/admin/accounts?search=acme');
    } finally {
      await lock.release();
    }
    expect(answer.status).toBe(503);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('service_unavailable');
    // The server's cancellation, not the client-side query timeout (5 s).
    expect(Date.now() - started).toBeLessThan(4_000);
    const after = await admin('/admin/accounts?search=acme');
    expect(after.status).toBe(200);
  });
});

describe.skipIf(!url)('PostgreSQL migrations beside the statement timeout', () => {
  let store: Store;
  const schema = uniqueSchemaName();
  const buildIsWaiting = async () => {
    const sessions = await store.pool!.query("select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'create index%accounts_name_trgm_idx%'");
    return sessions.rows.length > 0;
  };
  beforeAll(async () => {
    store = await createStore(url!, { schema, poolSize: 2, timeouts: { statementMs: 200 } });
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await dropTestSchema(url!, schema);
  });

  it('builds an index that waits past the request timeout, while a request-path query is cancelled', async () => {
    await store.pool!.query('drop index accounts_name_trgm_idx');
    // The build waits for this open write transaction: longer than the 200 ms a request may take.
    const lock = await holdLock(schema, 'lock table accounts in row exclusive mode');
    let migrating: ReturnType<typeof migrateToLatest> | undefined;
    let failed: Promise<unknown> = Promise.resolve(undefined);
    try {
      migrating = migrateToLatest(store);
      failed = migrating.then(
        () => undefined,
        (error: unknown) => error,
      );
      // Until the build waits for the lock, then twice the request timeout more.
      for (let waited = 0; !(await buildIsWaiting()); waited += 50) {
        if (waited > 30_000) throw new Error('the index build never reached its lock');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Meanwhile a write on the request pool, queued behind the build's lock, is cut at 200 ms.
      const blocked = await store.pool!.query('update accounts set name = name').then(
        () => 'ran',
        (error: { code?: string }) => error.code,
      );
      expect(blocked).toBe('57014');
    } finally {
      await lock.release();
    }
    expect(await failed).toBeUndefined();
    expect((await migrating!).built).toEqual(['accounts_name_trgm_idx']);
    const valid = await store.pool!.query("select indisvalid from pg_index where indexrelid = 'accounts_name_trgm_idx'::regclass");
    expect(valid.rows).toEqual([{ indisvalid: true }]);
  });
});
