/**
 * A request's cancellation: aborted when the client goes away (`abortOnClientClose`). On Node
 * 20 an AbortSignal is made by swapping a fresh EventTarget's prototype, which leaves the object
 * on V8's slow path: creating one costs ~1.7 µs, and every later use of it (`aborted`, `addEventListener`)
 * is slow too. Measured under load, this class in place of one AbortController per request
 * took 5 % off the gateway's CPU per request, streaming or not (bench/README). This is a plain
 * EventTarget subclass with the same `aborted`, `reason` and `abort` event, and a real
 * AbortSignal made only when an API requires one (`toAbortSignal`).
 */
export class RequestCancellation extends EventTarget {
  aborted = false;
  reason: unknown = undefined;
  private follower: AbortController | undefined;

  /** As `AbortController.abort`: once only; the reason defaults to an `AbortError`. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.follower?.abort(reason);
    this.dispatchEvent(new Event('abort'));
  }

  /** A real AbortSignal that aborts with this one; made on first use. */
  get signal(): AbortSignal {
    if (!this.follower) {
      this.follower = new AbortController();
      if (this.aborted) this.follower.abort(this.reason);
    }
    return this.follower.signal;
  }
}

/** What the call path takes as its signal: an AbortSignal (timeouts, tasks, media) or a request's cancellation. */
export type CancelSignal = AbortSignal | RequestCancellation;

/** For the APIs that accept only an AbortSignal (`AbortSignal.any`, `fetch`, timers). */
export function toAbortSignal(signal: CancelSignal): AbortSignal {
  return signal instanceof RequestCancellation ? signal.signal : signal;
}
