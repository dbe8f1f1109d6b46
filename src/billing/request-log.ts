import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/create-store.js';
import type { Database } from '../store/database.js';
import { insertRequests, type RequestRecord } from '../store/repositories/requests.js';
import { addUsageRollups } from '../store/repositories/usage-rollups.js';
import { rollUpRequests } from './roll-up-requests.js';

export interface RequestLogOptions {
  /** Rows per write; a full batch is written at once. */
  batchSize?: number;
  /** How long the first row of a partial batch waits for company. */
  flushIntervalMs?: number;
  /** Rows held in memory; past it `record()` waits for room. Never dropped. */
  capacity?: number;
  /** Pause before the first retry of a failed batch, doubled up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** How long `close()` keeps trying before it logs what it could not write. */
  closeTimeoutMs?: number;
}

export interface RequestLogStats {
  queued: number;
  waiting: number;
  written: number;
  batches: number;
  failedWrites: number;
}

const admitted: Promise<void> = Promise.resolve();

/**
 * The request log's writer: rows queue in memory and go to the database in batches (a full
 * batch at once, a partial one after `flushIntervalMs`), each batch with its usage rollups in one
 * transaction. The queue is bounded: when full, `record()` answers a promise that waits for room
 * (backpressure) instead of dropping the row. A failed batch stays at the head of the queue and is
 * retried with backoff; nothing is lost and, as inserts skip ids already present, nothing is
 * counted twice.
 */
export class RequestLog {
  private readonly queue: RequestRecord[] = [];
  private readonly waiting: Array<{ record: RequestRecord; admit: () => void }> = [];
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly capacity: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly closeTimeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private flushes = 0;
  private closing = false;
  /** Set once closed (or given up at shutdown): later rows go to the error log, not the database. */
  private stopped = false;
  private readonly counts = { written: 0, batches: 0, failedWrites: 0 };

  constructor(
    private readonly deps: { store: Pick<Store, 'db'>; logger: Logger },
    options: RequestLogOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    this.capacity = options.capacity ?? 10_000;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  }

  /** Queues a row. Resolves at once while there is room; otherwise once a write has made room. */
  record(record: RequestRecord): Promise<void> {
    if (this.stopped) {
      this.deps.logger.error({ request: describe(record) }, 'request log closed: row not written');
      return admitted;
    }
    if (this.waiting.length === 0 && this.queue.length < this.capacity) {
      this.queue.push(record);
      this.schedule();
      return admitted;
    }
    return new Promise((resolve) => {
      this.waiting.push({ record, admit: resolve });
      this.schedule();
    });
  }

  /** Writes everything queued or waiting now; resolves when it is in the database. */
  async flush(): Promise<void> {
    this.flushes += 1;
    try {
      while (!this.stopped && (this.queue.length > 0 || this.waiting.length > 0 || this.writing)) {
        this.startWriting();
        await this.writing;
      }
    } finally {
      this.flushes -= 1;
    }
  }

  /**
   * Flushes at shutdown. If the database stays unreachable past the timeout, the rows not
   * confirmed written go to the error log in full (never silently away).
   */
  async close(timeoutMs = this.closeTimeoutMs): Promise<void> {
    this.closing = true;
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      deadline = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([this.flush().then(() => 'flushed' as const), timedOut]);
    clearTimeout(deadline);
    this.stopped = true;
    if (outcome === 'flushed') return;
    const rows = [...this.queue, ...this.waiting.map((entry) => entry.record)];
    for (const entry of this.waiting.splice(0)) entry.admit();
    this.queue.length = 0;
    this.deps.logger.error({ rows: rows.map(describe) }, `request log: ${rows.length} rows not confirmed written at shutdown`);
  }

  stats(): RequestLogStats {
    return { queued: this.queue.length, waiting: this.waiting.length, ...this.counts };
  }

  private schedule(): void {
    if (this.writing) return;
    if (this.queue.length >= this.batchSize || this.flushes > 0 || this.closing) {
      this.startWriting();
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.startWriting();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }

  private startWriting(): void {
    if (this.writing) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
      if (this.queue.length > 0 && !this.stopped) this.schedule();
    });
  }

  /** One writer at a time; while a batch is in flight, new rows gather for the next one. */
  private async drain(): Promise<void> {
    this.admitWaiting();
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.batchSize);
      if (!(await this.writeWithRetry(batch))) return;
      this.queue.splice(0, batch.length);
      this.admitWaiting();
      if (this.queue.length < this.batchSize && this.flushes === 0 && !this.closing) return;
    }
  }

  private async writeWithRetry(batch: RequestRecord[]): Promise<boolean> {
    let delay = this.retryDelayMs;
    for (;;) {
      try {
        await writeRequestBatch(this.deps.store.db, batch);
        this.counts.written += batch.length;
        this.counts.batches += 1;
        return true;
      } catch (error) {
        this.counts.failedWrites += 1;
        if (this.stopped) return false;
        this.deps.logger.warn({ err: error, rows: batch.length, retryInMs: delay }, 'request log write failed; will retry');
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (this.stopped) return false;
        delay = Math.min(delay * 2, this.maxRetryDelayMs);
      }
    }
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.queue.length < this.capacity) {
      const next = this.waiting.shift()!;
      this.queue.push(next.record);
      next.admit();
    }
  }
}

/**
 * Inserts a batch of request rows and adds the inserted ones to their usage rollups, in one
 * transaction: the log and the statistics never disagree.
 */
export async function writeRequestBatch(db: Kysely<Database>, records: readonly RequestRecord[]): Promise<void> {
  const unique = new Map<string, RequestRecord>();
  for (const record of records) if (!unique.has(record.id)) unique.set(record.id, record);
  const rows = [...unique.values()];
  await db.transaction().execute(async (trx) => {
    const inserted = await insertRequests(trx, rows);
    let fresh = rows;
    if (inserted.length !== rows.length) {
      const ids = new Set(inserted);
      fresh = rows.filter((row) => ids.has(row.id));
    }
    const deltas = rollUpRequests(fresh);
    if (deltas.length > 0) await addUsageRollups(trx, deltas);
  });
}

function describe(record: RequestRecord): Record<string, unknown> {
  return { ...record, cost: record.cost.toString() };
}
