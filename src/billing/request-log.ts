import type { Logger } from 'pino';
import { createId as createTimeId } from '../core/ids.js';
import type { Store } from '../store/create-store.js';
import { notApplied, type BookItem, type BookOutcome, type SettlementEntry } from './plan-books.js';
import type { RequestRecord } from './request-record.js';
import { isDataError, writeBooks } from './write-books.js';
import { toValidText } from '../store/valid-text.js';
import { mapPacked } from '../core/map-packed.js';

export interface RequestLogOptions {
  /** Items per transaction; a full batch is written at once. */
  batchSize?: number;
  /** How long the first row of a partial batch waits for company when no settlement waits on it. */
  flushIntervalMs?: number;
  /** Items held in memory; past it new ones wait for room. Never dropped. */
  capacity?: number;
  /** Pause before the first retry of a failed batch, doubled up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** How long `close()` keeps trying before it logs what it could not write. */
  closeTimeoutMs?: number;
  /** The writer counts as unhealthy (`/ready` 503) while its oldest item has waited this long. */
  stuckAfterMs?: number;
}

export interface RequestLogStats {
  queued: number;
  waiting: number;
  written: number;
  batches: number;
  failedWrites: number;
  /** Items the database refused for their data, even cleaned; logged in full at error level. */
  quarantined: number;
}

interface Entry {
  item: BookItem;
  queuedAt: number;
  /** Present for settlements: resolved once committed. */
  done?: { resolve(outcome: BookOutcome): void; reject(error: Error): void };
}

const admitted: Promise<void> = Promise.resolve();

/**
 * Group commit of the money path: settlements, their request log rows and the usage rollups go
 * to the database together, one transaction per batch, and a batch starts as soon as the
 * previous commit ends (a settlement never waits for a timer). The log and the ledger therefore
 * agree at every crash point, and `settle()` answers only once its charge is durable. Rows
 * without a charge (refusals) ride along; `record()` resolves once such a row is queued.
 *
 * The queue is bounded: when full, new items wait for room (backpressure), never dropped. A batch
 * that fails for the database's sake (connection lost, timeout) stays at the head and is retried
 * with backoff; nothing is lost, and since a row already written is never applied again, nothing
 * is counted twice. A batch that fails for its data is split until the one bad item is found;
 * everything else is written, and that item is cleaned, tried alone, and otherwise quarantined
 * to the error log, so it never blocks the items behind it.
 */
export class RequestLog {
  private readonly queue: Entry[] = [];
  private readonly waiting: Array<{ entry: Entry; admit: () => void }> = [];
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly capacity: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly closeTimeoutMs: number;
  private readonly stuckAfterMs: number;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** The batch being gathered has already waited its one extra turn (`writeAfterTurn`). */
  private waitedATurn = false;
  private writing: Promise<void> | undefined;
  private flushes = 0;
  private closing = false;
  /** Set once closed (or given up at shutdown): later rows go to the error log, not the database. */
  private stopped = false;
  private readonly counts = { written: 0, batches: 0, failedWrites: 0, quarantined: 0 };

  constructor(
    private readonly deps: {
      store: Pick<Store, 'sqlite' | 'pool'>;
      logger: Logger;
      now?: () => Date;
      createId?: (prefix: string) => string;
      /** Paid calls of this process under way (reserved, not yet settling): settlements soon to come. */
      callsUnderWay?: () => number;
    },
    options: RequestLogOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.flushIntervalMs = options.flushIntervalMs ?? 50;
    this.capacity = options.capacity ?? 10_000;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
    this.stuckAfterMs = options.stuckAfterMs ?? 10_000;
  }

  /** Queues a row without a charge. Resolves at once while there is room; otherwise once a write has made room. */
  record(record: RequestRecord): Promise<void> {
    if (this.stopped) {
      this.deps.logger.error({ request: describe(record) }, 'request log closed: row not written');
      return admitted;
    }
    return this.enqueue({ item: { row: cleanRecord(record) }, queuedAt: Date.now() });
  }

  /**
   * Queues a settlement with its request log row (if any) and resolves once both are committed,
   * with what was charged. The row's cost is set to the charge.
   */
  settle(settlement: SettlementEntry, record?: RequestRecord): Promise<BookOutcome> {
    if (this.stopped) return Promise.reject(new Error('request log closed: settlement not written'));
    return new Promise<BookOutcome>((resolve, reject) => {
      void this.enqueue({ item: { settlement, row: record && cleanRecord(record) }, queuedAt: Date.now(), done: { resolve, reject } });
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
   * Flushes at shutdown. If the database stays unreachable past the timeout, the items not
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
    const entries = [...this.queue, ...this.waiting.map((waiting) => waiting.entry)];
    for (const waiting of this.waiting.splice(0)) waiting.admit();
    this.queue.length = 0;
    const failure = new Error('request log closed before the database answered');
    for (const entry of entries) entry.done?.reject(failure);
    this.deps.logger.error({ rows: entries.map((entry) => describeItem(entry.item)) }, `request log: ${entries.length} rows not confirmed written at shutdown`);
  }

  stats(): RequestLogStats {
    return { queued: this.queue.length, waiting: this.waiting.length, ...this.counts };
  }

  /** How long the oldest settlement not yet committed has waited (0: none is waiting). */
  oldestSettlementWaitMs(now = Date.now()): number {
    const oldest = this.queue.find((entry) => entry.done !== undefined) ?? this.waiting.find((waiting) => waiting.entry.done !== undefined)?.entry;
    return oldest === undefined ? 0 : now - oldest.queuedAt;
  }

  /** False while writes are stuck: the oldest item has waited longer than `stuckAfterMs`. */
  healthy(): boolean {
    const oldest = this.queue[0] ?? this.waiting[0]?.entry;
    return oldest === undefined || Date.now() - oldest.queuedAt < this.stuckAfterMs;
  }

  private enqueue(entry: Entry): Promise<void> {
    if (this.waiting.length === 0 && this.queue.length < this.capacity) {
      this.queue.push(entry);
      this.schedule(entry.done !== undefined);
      return admitted;
    }
    return new Promise((resolve) => {
      this.waiting.push({ entry, admit: resolve });
      this.schedule(false);
    });
  }

  private schedule(urgent: boolean): void {
    if (this.writing) return;
    if (urgent || this.queue.length >= this.batchSize || this.flushes > 0 || this.closing) {
      // Start after the current turn, so that whatever else arrives in this turn shares the batch.
      this.immediate ??= setImmediate(this.writeAfterTurn);
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

  /**
   * Group commit with siblings (as PostgreSQL's `commit_siblings`): when a settlement is queued
   * while other paid calls of this process are still under way, the batch waits one more turn of
   * the event loop, so that the answers already in the sockets settle into the same commit. A
   * commit's cost is mostly per transaction (on SQLite, a write of every page it touched: the
   * account's row, the rollups, a leaf of each request-log index); under load half the batches
   * held one or two settlements. One turn is a fraction of a millisecond; a lone request (none
   * other under way, as at concurrency 1) never waits for it. Only on SQLite, whose writes are
   * synchronous: on PostgreSQL the settlements that arrive while a batch is in flight already
   * gather for the next one (and in a side-by-side run the wait showed no gain there).
   */
  private readonly writeAfterTurn = (): void => {
    this.immediate = undefined;
    if (this.deps.store.sqlite && !this.waitedATurn && !this.closing && this.flushes === 0 && this.queue.length < this.batchSize && (this.deps.callsUnderWay?.() ?? 0) > 0) {
      this.waitedATurn = true;
      this.immediate = setImmediate(this.writeAfterTurn);
      return;
    }
    this.startWriting();
  };

  private startWriting(): void {
    this.waitedATurn = false;
    if (this.writing) return;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
      if (this.queue.length > 0 && !this.stopped) this.schedule(this.queue.some((entry) => entry.done !== undefined));
    });
  }

  /** One writer at a time; while a batch is in flight, new items gather for the next one. */
  private async drain(): Promise<void> {
    this.admitWaiting();
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.batchSize);
      const outcomes = await this.writeWithRetry(batch);
      if (!outcomes) return;
      this.queue.splice(0, batch.length);
      batch.forEach((entry, index) => entry.done?.resolve(outcomes[index]));
      this.admitWaiting();
      const settlementsWaiting = this.queue.some((entry) => entry.done !== undefined);
      if (!settlementsWaiting && this.queue.length < this.batchSize && this.flushes === 0 && !this.closing) return;
    }
  }

  /**
   * Writes the batch, retrying with backoff until it is in. The first failure is a warn line;
   * the retries after it are debug lines (the database's own outage line names the cause once),
   * and an info line says when the batch finally went in.
   */
  private async writeWithRetry(batch: Entry[]): Promise<BookOutcome[] | undefined> {
    let delay = this.retryDelayMs;
    let failures = 0;
    for (;;) {
      try {
        const outcomes = await this.writeIsolating(mapPacked(batch, (entry) => entry.item));
        this.counts.written += batch.length;
        this.counts.batches += 1;
        if (failures > 0) this.deps.logger.info({ rows: batch.length, failures }, 'request log write succeeded after failures; nothing was lost');
        return outcomes;
      } catch (error) {
        this.counts.failedWrites += 1;
        failures += 1;
        if (this.stopped) return undefined;
        const level = failures === 1 ? 'warn' : 'debug';
        this.deps.logger[level]({ err: error, rows: batch.length, retryInMs: delay }, 'request log write failed; rows are kept in memory and retried');
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (this.stopped) return undefined;
        delay = Math.min(delay * 2, this.maxRetryDelayMs);
      }
    }
  }

  /** Writes the items; on a data error, halves the batch until the bad item stands alone. */
  private async writeIsolating(items: BookItem[]): Promise<BookOutcome[]> {
    try {
      return await writeBooks(this.deps.store, this.batchOf(items));
    } catch (error) {
      if (!isDataError(error)) throw error;
      if (items.length > 1) {
        const middle = items.length >> 1;
        return [...(await this.writeIsolating(items.slice(0, middle))), ...(await this.writeIsolating(items.slice(middle)))];
      }
      return this.quarantine(items[0], error);
    }
  }

  /**
   * The one item the database refuses for its data. The full row goes to the error log; in its
   * place a bare row (same id, account, key, model, provider, status and cost; no counts and none
   * of the optional fields) is written with the charge, so the log and the ledger still agree and
   * the charge still counts. The settlement is never written without that row: the row's id is
   * what makes it idempotent (a lease settlement alone shrinks the lease row by an amount, and
   * its batch written again after a lost commit answer would shrink it and charge again).
   */
  private async quarantine(item: BookItem, error: unknown): Promise<BookOutcome[]> {
    this.counts.quarantined += 1;
    this.deps.logger.error({ err: error, request: describeItem(item) }, 'request log: the database refused this row for its data; row quarantined to this log');
    if (!item.row) return [notApplied];
    try {
      return await writeBooks(this.deps.store, this.batchOf([{ settlement: item.settlement, row: bareRecord(item.row) }]));
    } catch (bareError) {
      if (!isDataError(bareError)) throw bareError;
      // What is left of the row is the settlement's own data (its cost): the settlement alone
      // would be refused as well. Logged in full above; the items behind it go on.
      this.deps.logger.error({ err: bareError, request: describeItem(item) }, 'request log: the database refused even the bare row; item not written');
      return [notApplied];
    }
  }

  private batchOf(items: readonly BookItem[]) {
    const createId = this.deps.createId ?? createTimeId;
    return { items, createdAt: (this.deps.now?.() ?? new Date()).toISOString(), ledgerId: () => createId('led') };
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.queue.length < this.capacity) {
      const next = this.waiting.shift()!;
      this.queue.push(next.entry);
      next.admit();
    }
  }
}

/** Every text field made valid for the database (NUL and lone surrogates → U+FFFD). */
function cleanRecord(record: RequestRecord): RequestRecord {
  let cleaned: RequestRecord | undefined;
  // for…in: Object.entries took V8's slow runtime path for this object, ~1 % of a request's CPU.
  for (const field in record) {
    const value = record[field as keyof RequestRecord];
    if (typeof value !== 'string') continue;
    const valid = toValidText(value);
    if (valid !== value) (cleaned ??= { ...record })[field as 'model'] = valid;
  }
  return cleaned ?? record;
}

/** What of a refused row surely fits: ASCII text, no counts, no optional field. */
function bareRecord(record: RequestRecord): RequestRecord {
  // eslint-disable-next-line no-control-regex
  const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
  return {
    ...record,
    model: ascii(record.model),
    provider: record.provider === null ? null : ascii(record.provider),
    endpoint: ascii(record.endpoint),
    errorCode: 'row_quarantined',
    errorMessage: null,
    latencyMs: null,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    endUser: null,
    omitted: null,
    webSearchRequests: null,
    toolCost: null,
  };
}

function describe(record: RequestRecord): Record<string, unknown> {
  return { ...record, cost: record.cost.toString() };
}

function describeItem(item: BookItem): Record<string, unknown> {
  return {
    ...(item.row && describe(item.row)),
    ...(item.settlement && { settlement: { ...item.settlement, cost: item.settlement.cost.toString() } }),
  };
}
