import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './database-errors.js';

export interface PeriodicRoundOptions {
  /** What the round is, for its log lines ("alert sweep"). */
  name: string;
  /** The mean time between rounds; each wait is drawn from 0.75–1.25 of it, so instances drift apart. */
  intervalMs: number;
  /** Before the first round: 'now', or 'spread' (a random part of one interval, so instances started together do not run together). */
  first: 'now' | 'spread';
  logger: Logger;
}

/**
 * A background round every instance runs on a timer (sweeps, maintenance), one at a time, until
 * stopped. A round that fails is tried again at the next interval. A database that cannot answer
 * is the store's one outage episode (`log-outage-episodes.ts`), logged at debug here, not a
 * warning per round; any other failure is a warning.
 */
export class PeriodicRound {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private halted = false;

  constructor(
    private readonly options: PeriodicRoundOptions,
    private readonly round: () => Promise<unknown>,
  ) {}

  /** Set by `stop()`: a round in progress may end early at a safe point. */
  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    const tick = () => {
      this.running = this.round()
        .catch((error: unknown) => {
          if (this.halted) return;
          if (isDatabaseUnavailable(error)) this.options.logger.debug({ err: error }, `${this.options.name} failed: the database cannot answer`);
          else this.options.logger.warn({ err: error }, `${this.options.name} failed; trying again at the next interval`);
        })
        .finally(() => {
          this.running = undefined;
          if (!this.halted) this.timer = setTimeout(tick, this.options.intervalMs * (0.75 + Math.random() / 2)).unref();
        });
    };
    if (this.options.first === 'now') tick();
    else this.timer = setTimeout(tick, this.options.intervalMs * Math.random()).unref();
  }

  /** No round starts after this; `beforeWait` (cancelling a statement in progress) runs before the round in progress is awaited. */
  async stop(beforeWait?: () => Promise<void>): Promise<void> {
    this.halted = true;
    clearTimeout(this.timer);
    await beforeWait?.();
    await this.running;
  }
}
