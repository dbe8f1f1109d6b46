import type { Logger } from 'pino';
import type { Store } from '../store/create-store.js';
import { movePendingRollups } from './db/usage-summaries.js';
import { yieldToEventLoop } from '../store/run-in-batches.js';

/**
 * Pending rollups moved per transaction (`movePendingRollups`). On SQLite a page runs on the main
 * thread: 200 rows (up to 1,600 summary upserts) took 3–8 ms there on the development machine,
 * under the ~20 ms any statement may hold the event loop (issue 54). PostgreSQL holds no loop,
 * but a page is one statement holding its rows' locks: 2,000 rows keep it short.
 */
const sqlitePageRows = 200;
const postgresPageRows = 2_000;
/** After a failed page (the database down, a deadlock with a writer): wait, then go on. */
const retryAfterMs = 1_000;

export interface BackfillOutcome {
  /** Rows this run moved (others may have moved some: instances share the work). */
  rows: number;
  pages: number;
  seconds: number;
}

/**
 * Sums the usage rollups written before the summaries existed into them, in the background
 * (migration 2026-12-07-1300 set them aside; docs/usage-reports.md, "Upgrading: the backfill"):
 * page after page, yielding to the event loop between pages, until nothing is pending. Every
 * instance runs it after start; they share the pages. The reports are exact meanwhile (they add
 * what is pending), only slower for the days still pending.
 */
export class UsageSummariesBackfill {
  private stopped = false;
  private running?: Promise<BackfillOutcome>;
  private finished = false;

  constructor(
    private readonly store: Store,
    private readonly options: { logger?: Logger; pageRows?: number; onPage?: (rows: number) => void } = {},
  ) {}

  /** Starts the run in the background (once); `done()` tells when it has finished. */
  start(): Promise<BackfillOutcome> {
    this.running ??= this.run();
    return this.running;
  }

  /** True once no pending rollup is left. */
  done(): boolean {
    return this.finished;
  }

  /** Stops after the page in progress (a later start goes on where it stopped). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<BackfillOutcome> {
    const pageRows = this.options.pageRows ?? (this.store.sqlite ? sqlitePageRows : postgresPageRows);
    const started = performance.now();
    const outcome = { rows: 0, pages: 0, seconds: 0 };
    while (!this.stopped) {
      let moved: number;
      try {
        moved = await movePendingRollups(this.store, pageRows);
      } catch (error) {
        if (this.stopped) break;
        this.options.logger?.warn({ err: error }, 'usage summaries backfill: a page failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, retryAfterMs).unref?.());
        continue;
      }
      if (moved === 0) {
        this.finished = true;
        outcome.seconds = Math.round((performance.now() - started) / 100) / 10;
        if (outcome.rows > 0) this.options.logger?.info({ rows: outcome.rows, pages: outcome.pages, seconds: outcome.seconds }, 'usage summaries backfilled');
        return outcome;
      }
      outcome.rows += moved;
      outcome.pages += 1;
      this.options.onPage?.(moved);
      if (outcome.pages === 1) this.options.logger?.info('usage summaries backfill started: reports read the pending rollups of the days it has not reached');
      await yieldToEventLoop();
    }
    outcome.seconds = Math.round((performance.now() - started) / 100) / 10;
    return outcome;
  }
}
