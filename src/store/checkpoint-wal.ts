import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/**
 * SQLite's write-ahead log is copied back into the database file (a checkpoint) by a worker
 * thread with a connection of its own, every `intervalMs`, instead of by the committing
 * connection. With SQLite's default, the commit that takes the log past 1,000 pages runs the
 * checkpoint on the event loop: a write of every page in the log and two fsyncs, paid by whatever
 * requests wait on that turn, and each page written back once per 1,000 frames however often it
 * changed (the account's row, the rollups, the request log's index leaves change in every batch).
 * A PASSIVE checkpoint waits for no reader or writer, so the request path never waits for it.
 *
 * The committing connection keeps an automatic checkpoint at `fallbackPages`. Under steady writes
 * it is also what lets the log start over: SQLite restarts the log only at a write that begins
 * with every frame copied, and commits land while the worker copies, so the log grows to
 * `fallbackPages` (~40 MB) and the committing connection's checkpoint then finds all but the last
 * tenth of a second already copied, and the log restarts. (Measured: 45,000 requests at 1,500/s
 * left a 42 MB log.) Should the worker stop, that checkpoint does the whole work, as before.
 *
 * Measured against the commit before it (`bench/compare-builds.ts --mode json`, three rounds of
 * 25,000 requests): 314 → 272 µs of CPU per non-streaming request, 3,088 → 3,589 requests/s.
 */
export interface WalCheckpointer {
  close(): Promise<void>;
}

/** Frames in the log past which the committing connection checkpoints itself (the fallback). */
export const fallbackPages = 10_000;

// Runs as a CommonJS script in the worker (`eval`), so that it needs no file of its own beside
// the compiled one (tests run the TypeScript sources).
const workerSource = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.path, { fileMustExist: true });
let failing = false;
const timer = setInterval(() => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
    failing = false;
  } catch (error) {
    if (!failing) parentPort.postMessage({ error: String(error && error.message || error) });
    failing = true;
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  try { database.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  database.close();
  parentPort.close();
});
`;

export function startWalCheckpointer(path: string, options: { intervalMs?: number; logger?: Logger } = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(workerSource, { eval: true, workerData: { path, driver, intervalMs: options.intervalMs ?? 100 } });
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.logger?.warn({ error: message.error }, 'SQLite checkpoint failed in the background; the committing connection checkpoints past its fallback');
  });
  worker.on('error', (error) => options.logger?.warn({ err: error }, 'SQLite checkpoint worker stopped; the committing connection checkpoints past its fallback'));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async close() {
      worker.postMessage('close');
      const timeout = setTimeout(() => void worker.terminate(), 2_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
