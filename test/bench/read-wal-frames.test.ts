import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { framesByOwner, readPageOwners, readWalCommits } from '../../bench/investigations/read-wal-frames.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-wal-frames-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A fresh database in WAL mode, no automatic checkpoint, its log empty; closed after `use`. */
function withWalDatabase(name: string, use: (database: SqliteDatabase.Database, walPath: string) => void): void {
  const path = join(directory, name);
  const database = new SqliteDatabase(path);
  try {
    database.pragma('journal_mode = WAL');
    database.pragma('wal_autocheckpoint = 0');
    use(database, `${path}-wal`);
  } finally {
    database.close();
  }
}

describe('readWalCommits', () => {
  it('reads each commit of the current log as its pages, and attributes them to their table or index', () => {
    withWalDatabase('frames.sqlite', (database, walPath) => {
      database.exec('create table items (id integer primary key, name text not null); create index items_name_idx on items (name)');
      database.pragma('wal_checkpoint(TRUNCATE)');
      const insert = database.prepare('insert into items (name) values (?)');
      // Three transactions of one small row each: each commits one leaf of the table and one of the index.
      for (const name of ['a', 'b', 'c']) database.transaction(() => insert.run(name))();
      const commits = readWalCommits(walPath);
      expect(commits).toHaveLength(3);
      const owners = readPageOwners(database);
      for (const commit of commits) {
        expect(commit.map((page) => owners.get(page)).sort()).toEqual(['items', 'items_name_idx']);
      }
      expect(framesByOwner(commits, owners)).toEqual([
        { owner: 'items', framesPerCommit: 1 },
        { owner: 'items_name_idx', framesPerCommit: 1 },
      ]);

      // After a checkpoint the log starts over: the frames of the old generation past the new end are not read.
      database.pragma('wal_checkpoint(RESTART)');
      database.transaction(() => insert.run('d'))();
      expect(readWalCommits(walPath)).toHaveLength(1);
    });
  });

  it('reads no commit from an empty log', () => {
    withWalDatabase('empty.sqlite', (database, walPath) => {
      database.pragma('wal_checkpoint(TRUNCATE)');
      expect(readWalCommits(walPath)).toEqual([]);
    });
  });
});
