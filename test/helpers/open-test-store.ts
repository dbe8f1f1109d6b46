import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { dropTestSchema, uniqueSchemaName, type TestDatabase } from './test-databases.js';

export interface TestStore {
  store: Store;
  /** Closes the store and, on PostgreSQL, drops its schema. */
  close(): Promise<void>;
}

/** A migrated store on a test database: on PostgreSQL in a fresh schema of its own. */
export async function openTestStore(database: TestDatabase): Promise<TestStore> {
  const schema = database.name === 'postgres' ? uniqueSchemaName() : undefined;
  let store: Store | undefined;
  const close = async () => {
    await store?.close();
    if (schema) await dropTestSchema(database.url, schema);
  };
  try {
    store = await createStore(database.url, { schema, poolSize: 4 });
    await migrateToLatest(store);
  } catch (error) {
    await close();
    throw error;
  }
  return { store, close };
}
