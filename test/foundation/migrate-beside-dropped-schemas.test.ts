import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createStore, migrateToLatest } from '../../src/store/create-store.js';
import { dropTestSchema, uniqueSchemaName } from '../helpers/test-databases.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('Migration beside dropped schemas SKIPPED: set TEST_DATABASE_URL=postgres://… to run it\n');

/**
 * Several deployments (or test suites) share one PostgreSQL database, each in a schema of its own.
 * Kysely finds its migration tables by listing the tables of every schema, and PostgreSQL fails
 * that list ("schema … does not exist") when another schema is dropped while it is read. A
 * migration must not fail for another schema's sake: here one client creates and drops schemas
 * with tables in them as fast as it can while new stores migrate, each in its own schema.
 */
describe.skipIf(!postgresUrl)('migrations beside schemas being dropped', () => {
  it('every store migrates, however often another schema disappears meanwhile', async () => {
    const churn = new pg.Client({ connectionString: postgresUrl });
    await churn.connect();
    let running = true;
    let dropped = 0;
    const churning = (async () => {
      while (running) {
        const name = `churn_${process.pid}_${dropped}`;
        await churn.query(`create schema "${name}"; ${Array.from({ length: 20 }, (_, index) => `create table "${name}".t${index} (id int, a text, b text, c text)`).join('; ')}`);
        await churn.query(`drop schema "${name}" cascade`);
        dropped += 1;
      }
    })();
    const failures: string[] = [];
    try {
      for (let round = 0; round < 12; round += 1) {
        const schema = uniqueSchemaName();
        const store = await createStore(postgresUrl!, { schema, poolSize: 2 });
        try {
          await migrateToLatest(store);
        } catch (error) {
          failures.push((error as Error).message);
        } finally {
          await store.close();
          await dropTestSchema(postgresUrl!, schema);
        }
      }
    } finally {
      running = false;
      await churning;
      await churn.end();
    }
    expect(dropped).toBeGreaterThan(12);
    expect(failures).toEqual([]);
  }, 120_000);
});
