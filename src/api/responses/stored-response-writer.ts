import type { AppContext } from '../../app-context.js';
import { runInBatches } from '../../store/run-in-batches.js';
import { deleteExpiredStoredResponses, insertStoredResponses, type StoredResponseRecord } from '../../store/repositories/stored-responses.js';

/** Rows per insert; more waiting go in the next batch. */
const batchSize = 64;
/** Expired rows one statement of a sweep deletes (each row up to a response's JSON), so that none holds SQLite's thread long. */
const sweepBatch = 100;
/** A sweep runs at most this often, by the context's clock. */
const sweepEveryMs = 60_000;

interface Pending {
  record: StoredResponseRecord;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for stored responses, so that `store: true` (the default) costs the hot path a
 * share of one insert rather than a round trip of its own: a batch starts as soon as the previous
 * one ends (no timer: alone, a write goes at once), and each write resolves when its batch has
 * committed — a client that continues from a response at once finds it. After a batch, expired
 * rows are swept, at most once a minute by the context's clock, without holding writers up.
 */
export class StoredResponseWriter {
  private readonly pending: Pending[] = [];
  private draining = false;
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  private sweeping: Promise<number> | undefined;

  constructor(private readonly context: Pick<AppContext, 'store' | 'clock' | 'logger'>) {}

  write(record: StoredResponseRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** Deletes every row expired by now, in batches with a yield between them; resolves with how many. */
  sweep(): Promise<number> {
    const now = this.context.clock.now().toISOString();
    this.sweeping ??= runInBatches((limit) => deleteExpiredStoredResponses(this.context.store.db, now, limit), { batchSize: sweepBatch })
      .then((run) => run.done)
      .catch((error: unknown) => {
        this.context.logger.warn({ err: error }, 'stored response sweep failed');
        return 0;
      })
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, batchSize);
      try {
        await insertStoredResponses(
          this.context.store.db,
          batch.map((entry) => entry.record),
        );
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
      const nowMs = this.context.clock.now().getTime();
      if (nowMs - this.lastSweepMs >= sweepEveryMs) {
        this.lastSweepMs = nowMs;
        void this.sweep();
      }
    }
    this.draining = false;
  }
}

const writers = new WeakMap<object, StoredResponseWriter>();

/** The one writer of an application context (made on first use). */
export function storedResponseWriterOf(context: Pick<AppContext, 'store' | 'clock' | 'logger'>): StoredResponseWriter {
  let writer = writers.get(context);
  if (!writer) {
    writer = new StoredResponseWriter(context);
    writers.set(context, writer);
  }
  return writer;
}
