import pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Store } from '../store/create-store.js';
import { runInBatches } from '../store/run-in-batches.js';
import { adoptDefaultRows, convertToPartitioned, createPartitionsAhead, dayBound, dayMs, dropPartition, ensureDefaultPartition, isPartitioned, listPartitions, startOfDay } from './db/request-log-partitions.js';
import { deleteRequestsBefore } from './db/requests.js';
import { PeriodicRound } from '../store/periodic-round.js';

export interface RequestLogMaintenanceOptions {
  /** Days of log kept (`SWITCHYARD_REQUEST_LOG_RETENTION_DAYS`); undefined: kept forever. */
  retentionDays?: number;
  /** Days of partitions kept ready after today (PostgreSQL; default 7). */
  aheadDays?: number;
  /** Time between runs (default one hour, ±25 %). */
  intervalMs?: number;
  /** Rows deleted per statement on SQLite (default 100: ≈ 0.6 ms of the event loop at the median, measured on a 1M-row log). */
  sqliteBatchRows?: number;
  /** Partitions dropped per run on PostgreSQL (default 4; the rest wait for the next run). */
  maxDropsPerRun?: number;
  /** PostgreSQL, a log still empty when partitioned: its day partitions start at this day (a log about to be filled with past days: the scale bench's seed). */
  emptyLogFromMs?: number;
}

export interface RequestLogMaintenanceRun {
  /** PostgreSQL: the cut (first id of the first day partition) when this run converted the table. */
  convertedAt?: string;
  created: string[];
  dropped: string[];
  /** SQLite: rows deleted by the retention. */
  deletedRows: number;
  /** PostgreSQL: the partition made of the rows the DEFAULT partition caught while no day partition was ready for them. */
  adopted?: string;
  /** PostgreSQL: another instance held the maintenance lock, nothing was done. */
  skipped?: boolean;
}

/**
 * Keeps the request log livable at 10,000 requests a second for a year (issue 52, scope 3).
 *
 * PostgreSQL: the first run converts `requests` into a table partitioned by day of id
 * (`db/request-log-partitions.ts`); every run keeps `aheadDays` of partitions ready past today
 * and, with a retention, drops the days wholly older than it, a partition at a time, detached
 * by a plain DETACH (PostgreSQL refuses CONCURRENTLY beside a DEFAULT partition), a moment's
 * catalog change bounded by lock_timeout. A DEFAULT partition catches the rows of days no
 * partition was made for, so the books' insert never fails for want of one; the next run makes
 * them a partition of their own (`adoptDefaultRows`). Instances share the work through a session advisory lock per
 * schema: one runs it, the others skip their turn.
 *
 * SQLite: the retention deletes in batches of `sqliteBatchRows` by the primary key, yielding to the
 * event loop between batches, so a request never waits behind more than one batch.
 *
 * Both: days are those of the ids (the request log's clock) against `clock.now()`. A row is
 * dropped only with its usage already counted: the books write a row, its usage rollup and its
 * usage summaries in one transaction (`books-sqlite.ts`, `books-postgres.ts`), and the reports
 * read only those, so the usage of every dropped day stays.
 */
export class RequestLogMaintenance {
  private readonly rounds: PeriodicRound;
  /** The backend of the run in progress (PostgreSQL), cancelled by `stop()`. */
  private backendPid: number | undefined;

  constructor(
    private readonly deps: { store: Pick<Store, 'db' | 'pool' | 'sqlite'>; clock: Clock; logger: Logger },
    private readonly options: RequestLogMaintenanceOptions = {},
  ) {
    this.rounds = new PeriodicRound({ name: 'request log maintenance', intervalMs: options.intervalMs ?? 3_600_000, first: 'now', logger: deps.logger }, () => this.runOnce());
  }

  /** Runs now in the background, then every interval, until `stop()`. */
  start(): void {
    this.rounds.start();
  }

  /**
   * Stops, cancelling a statement in progress rather than waiting for it: a conversion's VALIDATE
   * over a large log may take minutes, and every step is safe to cut (the next run starts the
   * conversion over, and finishes an interrupted DETACH with FINALIZE).
   */
  stop(): Promise<void> {
    return this.rounds.stop(async () => {
      const pid = this.backendPid;
      if (pid !== undefined) await this.deps.store.pool?.query('select pg_cancel_backend($1)', [pid]).catch(() => undefined);
    });
  }

  async runOnce(): Promise<RequestLogMaintenanceRun> {
    const nowMs = this.deps.clock.now().getTime();
    const retention = this.options.retentionDays;
    const keepFrom = retention === undefined ? undefined : dayBound(nowMs - retention * dayMs);
    if (!this.deps.store.pool) {
      if (keepFrom === undefined) return { created: [], dropped: [], deletedRows: 0 };
      const batchSize = this.options.sqliteBatchRows ?? 100;
      const run = await runInBatches(async (limit) => (this.rounds.stopped ? 0 : deleteRequestsBefore(this.deps.store.db, keepFrom, limit)), { batchSize });
      return { created: [], dropped: [], deletedRows: run.done };
    }
    return this.withMaintenanceClient(this.deps.store.pool, async (client) => {
      const run: RequestLogMaintenanceRun = { created: [], dropped: [], deletedRows: 0 };
      if (!(await isPartitioned(client))) {
        run.convertedAt = await convertToPartitioned(client, nowMs, { emptyCutMs: this.options.emptyLogFromMs });
        this.deps.logger.info({ cut: run.convertedAt }, 'request log partitioned by day; the rows before the cut stay in one partition');
      }
      // The safety net: rows past the last partition land in the DEFAULT partition instead of
      // failing their insert (and with it the charge written in the same transaction).
      if (await ensureDefaultPartition(client)) this.deps.logger.info('request log default partition attached');
      // What it caught while no run made the days (every instance's maintenance failing past the
      // days made ahead) becomes a partition of its own; the days ahead start after it.
      const adoption = await adoptDefaultRows(client, nowMs);
      if (adoption.adopted) {
        run.adopted = adoption.adopted;
        this.deps.logger.warn({ partition: adoption.adopted }, 'request log rows past the last day partition (maintenance did not run in time) made a partition of their own');
      }
      if (adoption.stuckBelow) this.deps.logger.error({ id: adoption.stuckBelow }, 'request log default partition holds rows older than every partition (an id made on a clock days wrong): they stay there, readable, until deleted');
      // Ids carry the wall clock; a test's clock may be behind it: cover both.
      run.created = await createPartitionsAhead(client, startOfDay(Math.max(nowMs, Date.now())) + ((this.options.aheadDays ?? 7) + 1) * dayMs);
      if (keepFrom === undefined) return run;
      const due = (await listPartitions(client)).filter((partition) => partition.to <= keepFrom);
      for (const partition of due.slice(0, this.options.maxDropsPerRun ?? 4)) {
        if (this.rounds.stopped) break;
        await dropPartition(client, partition);
        run.dropped.push(partition.name);
      }
      if (run.dropped.length > 0) this.deps.logger.info({ dropped: run.dropped, keepFrom }, 'request log days past the retention dropped');
      return run;
    });
  }

  /**
   * A connection of its own without the request path's statement timeout (the conversion's
   * VALIDATE scans the whole table), holding the maintenance lock of this schema for the run.
   */
  private async withMaintenanceClient(pool: pg.Pool, work: (client: pg.Client) => Promise<RequestLogMaintenanceRun>): Promise<RequestLogMaintenanceRun> {
    const client = new pg.Client({ ...pool.options, query_timeout: undefined, options: String(pool.options.options ?? '').replace(/-c statement_timeout=\d+/, '-c statement_timeout=0') });
    client.on('error', () => undefined);
    await client.connect();
    const lock = "hashtext('switchyard request log maintenance ' || current_schema())";
    try {
      this.backendPid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
      const locked = await client.query<{ locked: boolean }>(`select pg_try_advisory_lock(${lock}) as locked`);
      if (!locked.rows[0].locked) return { created: [], dropped: [], deletedRows: 0, skipped: true };
      return await work(client);
    } finally {
      this.backendPid = undefined;
      await client.end().catch(() => undefined);
    }
  }
}
