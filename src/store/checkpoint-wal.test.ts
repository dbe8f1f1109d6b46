import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, type Store } from './create-store.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A file store, with ~2 MB (about 500 pages) committed in one transaction: below any automatic checkpoint. */
async function storeWithWrites(backgroundCheckpoints: boolean): Promise<{ store: Store; path: string }> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-wal-'));
  directories.push(directory);
  const path = join(directory, 'books.db');
  const store = await createStore(`sqlite:${path}`, { backgroundCheckpoints });
  const database = store.sqlite!;
  database.exec('create table filler (body blob)');
  const insert = database.prepare('insert into filler (body) values (?)');
  database.transaction(() => {
    for (let index = 0; index < 500; index += 1) insert.run(Buffer.alloc(4000, index % 251));
  })();
  return { store, path };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((resolve) => setTimeout(resolve, 20))) if (check()) return true;
  return check();
}

describe('SQLite write-ahead log checkpoints', () => {
  it('are made by the background worker: committed pages reach the database file without the committing connection checkpointing', async () => {
    const { store, path } = await storeWithWrites(true);
    try {
      // 500 pages are below the committing connection's automatic checkpoint (10,000 here, 1,000
      // by default), so only the worker can have copied them into the file.
      expect(store.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000n);
      expect(await waitFor(() => statSync(path).size >= 2_000_000, 3_000)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('without the worker (short-lived commands), the log keeps them until SQLite checkpoints at its default', async () => {
    const { store, path } = await storeWithWrites(false);
    try {
      expect(store.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000n);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(statSync(path).size).toBeLessThan(1_000_000);
      expect(statSync(`${path}-wal`).size).toBeGreaterThanOrEqual(2_000_000);
    } finally {
      await store.close();
    }
  });

  it('closes with the store: the worker ends, and nothing is lost', async () => {
    const { store, path } = await storeWithWrites(true);
    await store.close();
    const reopened = await createStore(`sqlite:${path}`);
    try {
      expect(reopened.sqlite!.prepare('select count(*) as n from filler').get()).toEqual({ n: 500n });
    } finally {
      await reopened.close();
    }
  });
});
