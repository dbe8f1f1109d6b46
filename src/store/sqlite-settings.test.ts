import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStore } from './create-store.js';

describe('the SQLite connection the gateway opens', () => {
  it('runs in WAL mode without a sync per commit, checks foreign keys, and keeps temporary tables in memory', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'switchyard-settings-'));
    const store = await createStore(`sqlite:${join(directory, 'gateway.db')}`);
    try {
      const database = store.sqlite!;
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.pragma('synchronous', { simple: true })).toBe(1n);
      expect(database.pragma('foreign_keys', { simple: true })).toBe(1n);
      // 2 = MEMORY: the books' `… returning` statements collect their rows without a temporary database on disk.
      expect(database.pragma('temp_store', { simple: true })).toBe(2n);
      database.exec('create table held (id text primary key, amount integer not null)');
      database.prepare('insert into held values (?, ?)').run('lease', 10n);
      expect(database.prepare('update held set amount = amount - ? where id = ? and amount >= ? returning id, amount').get(4n, 'lease', 4n)).toEqual({ id: 'lease', amount: 6n });
    } finally {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
