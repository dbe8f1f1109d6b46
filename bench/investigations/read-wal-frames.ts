import { readFileSync } from 'node:fs';
import type SqliteDatabase from 'better-sqlite3';

/**
 * The commits in a SQLite write-ahead log, each as the page numbers of its frames, in log order.
 * Only the frames of the log's current generation count (salts equal to the header's): a log
 * that restarted after a checkpoint keeps older frames past its new end, which belong to no
 * current commit. Frames after the last commit frame (a transaction still being written) are left
 * out. Layout: https://www.sqlite.org/fileformat2.html#walformat (32-byte header, then frames of a
 * 24-byte header and one page).
 */
export function readWalCommits(walPath: string): number[][] {
  const wal = readFileSync(walPath);
  if (wal.length < 32) return [];
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const commits: number[][] = [];
  let current: number[] = [];
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salts[0] || wal.readUInt32BE(offset + 12) !== salts[1]) break;
    current.push(wal.readUInt32BE(offset));
    // Non-zero: the database's size in pages after this commit, so this frame ends a transaction.
    if (wal.readUInt32BE(offset + 4) !== 0) {
      commits.push(current);
      current = [];
    }
  }
  return commits;
}

/**
 * Which table or index each page of the database belongs to (its B-tree's name, `(interior)`
 * appended for interior pages), read from SQLite's `dbstat` table (compiled into better-sqlite3).
 * Pages it does not list (free pages) are absent.
 */
export function readPageOwners(database: SqliteDatabase.Database): Map<number, string> {
  const owners = new Map<number, string>();
  const rows = database.prepare("select name, pageno, pagetype from dbstat where aggregate = false").all() as Array<{ name: string; pageno: number | bigint; pagetype: string }>;
  for (const row of rows) owners.set(Number(row.pageno), row.pagetype === 'internal' ? `${row.name} (interior)` : row.name);
  return owners;
}

/** Frames per commit by B-tree, most first: what each commit of the sample wrote to the log. */
export function framesByOwner(commits: readonly number[][], owners: ReadonlyMap<number, string>): Array<{ owner: string; framesPerCommit: number }> {
  const counts = new Map<string, number>();
  for (const commit of commits) {
    for (const page of commit) {
      const owner = page === 1 ? 'database header (page 1)' : (owners.get(page) ?? 'free or new page');
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
  }
  return [...counts]
    .map(([owner, count]) => ({ owner, framesPerCommit: count / commits.length }))
    .sort((a, b) => b.framesPerCommit - a.framesPerCommit);
}
