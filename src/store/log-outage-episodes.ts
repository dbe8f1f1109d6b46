import type { Logger } from 'pino';

export interface OutageEpisodeOptions {
  /** Where the episode's two lines go; none: nothing is logged (tests, tools). */
  logger?: Logger;
  /** What is down, as the operator knows it: `database`, `redis`. */
  dependency: string;
  /** What clients get meanwhile, for the warn line. */
  effect: string;
  /** How long the dependency must answer without a failure before the episode counts as over. */
  quietMs?: number;
}

/**
 * Tells the operator once per outage, not once per request: the first failure after a healthy
 * period is one warn line naming the cause, the failures after it only count, and once the
 * dependency has answered for `quietMs` with no failure one info line says it is back, how
 * long it was out and how many calls failed meanwhile. A dependency that flaps within `quietMs`
 * stays one episode. Cheap on the hot path: an answer outside an episode is one comparison.
 */
export class OutageEpisodes {
  private since: number | undefined;
  private failures = 0;
  private lastError: string | undefined;
  private recovery: NodeJS.Timeout | undefined;
  /** Closed with its store or client: the failures of closing are not an outage. */
  private closed = false;
  private readonly quietMs: number;

  constructor(private readonly options: OutageEpisodeOptions) {
    this.quietMs = options.quietMs ?? 2_000;
  }

  /** True between the first failure and the confirmed recovery. */
  get down(): boolean {
    return this.since !== undefined;
  }

  failed(error: unknown): void {
    if (this.closed) return;
    if (this.recovery) {
      clearTimeout(this.recovery);
      this.recovery = undefined;
    }
    this.lastError = describe(error);
    if (this.since !== undefined) {
      this.failures += 1;
      return;
    }
    this.since = Date.now();
    this.failures = 1;
    const code = (error as { code?: unknown } | null)?.code;
    this.options.logger?.warn(
      { dependency: this.options.dependency, code: typeof code === 'string' ? code : undefined, cause: this.lastError },
      `${this.options.dependency} is not answering: ${this.options.effect} (logged once until it answers again)`,
    );
  }

  answered(): void {
    if (this.since === undefined || this.recovery || this.closed) return;
    this.recovery = setTimeout(() => {
      this.recovery = undefined;
      const downMs = Date.now() - this.since!;
      this.options.logger?.info(
        { dependency: this.options.dependency, downMs, failures: this.failures, lastCause: this.lastError },
        `${this.options.dependency} answers again after ${Math.round(downMs / 100) / 10} s; ${this.failures} calls failed meanwhile`,
      );
      this.since = undefined;
      this.failures = 0;
    }, this.quietMs);
    this.recovery.unref();
  }

  /** From now on nothing is logged: the connections are being closed on purpose. */
  close(): void {
    this.closed = true;
    if (this.recovery) clearTimeout(this.recovery);
    this.recovery = undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
}
