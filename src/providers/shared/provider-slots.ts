import type { Logger } from 'pino';
import type { ProviderConnectionLimits } from '../../core/provider-connection-limits.js';
import { createAbortedError, UpstreamError } from '../../errors/upstream-error.js';
import type { CancelSignal } from '../../core/cancel-signal.js';

interface Waiter {
  grant(release: () => void): void;
}

/**
 * The calls one provider may have open at once (one per connection: no pipelining), and a
 * bounded, time-limited line for the rest. Without it, calls past the pool's size waited in
 * undici's own queue without bound or notice, for tens of seconds under load. A call that finds
 * the line full, or waits past its bound, is refused with a retryable `service_unavailable`
 * `UpstreamError`: routing tries the next endpoint, and after the last the client gets 503 with
 * `Retry-After`. Nothing has been sent to the provider then, so nothing is charged.
 */
export class ProviderSlots {
  private active = 0;
  /** A Set keeps insertion order (first come, first served) and drops a leaver in O(1). */
  private readonly waiting = new Set<Waiter>();
  /** Refusals since the line last emptied: the operator is told once per episode, not per request. */
  private refusedInEpisode = 0;

  constructor(
    private readonly providerId: string,
    readonly limits: ProviderConnectionLimits,
    private readonly logger?: Pick<Logger, 'warn' | 'info'>,
  ) {}

  get inUse(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /** Resolves with the function that frees the slot (safe to call more than once). */
  acquire(signal: CancelSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(createAbortedError(this.providerId, signal.reason));
    if (this.active < this.limits.max) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.size >= this.limits.queue) return Promise.reject(this.refuse(`all ${this.limits.max} connections are busy and ${this.waiting.size} calls are waiting`));
    return new Promise((resolve, reject) => {
      const leave = () => {
        this.waiting.delete(waiter);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        leave();
        reject(createAbortedError(this.providerId, signal.reason));
      };
      const timer = setTimeout(() => {
        leave();
        reject(this.refuse(`no connection came free within ${this.limits.queueTimeoutMs} ms (all ${this.limits.max} busy)`));
      }, this.limits.queueTimeoutMs);
      const waiter: Waiter = {
        grant: (release) => {
          leave();
          resolve(release);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.add(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.values().next();
      // The slot passes straight to the first in line, so `active` never drops below the limit
      // while anyone waits.
      if (!next.done) next.value.grant(this.releaser());
      else {
        this.active -= 1;
        this.endEpisode();
      }
    };
  }

  private refuse(reason: string): UpstreamError {
    if (this.refusedInEpisode === 0) {
      this.logger?.warn({ provider: this.providerId, max: this.limits.max, queue: this.limits.queue, queueTimeoutMs: this.limits.queueTimeoutMs }, `provider ${this.providerId}: ${reason}; refusing calls (503) until the line clears`);
    }
    this.refusedInEpisode += 1;
    return new UpstreamError({ provider: this.providerId, status: 0, code: 'service_unavailable', retryable: true, message: `${this.providerId}: ${reason}` });
  }

  private endEpisode(): void {
    if (this.refusedInEpisode === 0 || this.waiting.size > 0) return;
    this.logger?.info({ provider: this.providerId, refused: this.refusedInEpisode }, `provider ${this.providerId}: connections free again`);
    this.refusedInEpisode = 0;
  }
}
