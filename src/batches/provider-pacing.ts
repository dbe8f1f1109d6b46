import type { AppContext } from '../app-context.js';
import type { Catalog } from '../catalog/catalog.js';
import { isEndpointAvailable } from '../catalog/catalog.js';
import { defaultConnectionLimits } from '../core/provider-connection-limits.js';

/** The longest pause after a rate limit that came without `Retry-After`, and the first one. */
const maxBackoffMs = 60_000;
const firstBackoffMs = 1_000;

/**
 * The pace of batch lines run on the gateway's engine, per provider and across every batch of
 * this instance (contract §9, "paced under the provider's limits"): at most `limitOf(provider)`
 * lines in flight at once, and none while the provider is paused after it answered a line with
 * a rate limit (for its `Retry-After`, else a backoff that doubles from 1 s to 60 s and resets on
 * the provider's next answer). Live requests are not counted here: they keep the rest of the
 * provider's connections. In memory, like the connection slots (`providers/shared/provider-slots.ts`):
 * each instance paces its own lines.
 */
export class ProviderPacer {
  private readonly inFlight = new Map<string, number>();
  private readonly pausedUntil = new Map<string, number>();
  private readonly strikes = new Map<string, number>();
  private waiters: Array<() => void> = [];

  constructor(
    private readonly limitOf: (provider: string) => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot of `provider` for one line; false while it is full or paused. */
  tryAcquire(provider: string): boolean {
    const count = this.inFlight.get(provider) ?? 0;
    if (count >= this.limitOf(provider) || this.pauseLeftMs(provider) > 0) return false;
    this.inFlight.set(provider, count + 1);
    return true;
  }

  /** Gives the slot back; `answered`: the provider answered (a rate limit's backoff starts over). */
  release(provider: string, answered: boolean): void {
    const count = (this.inFlight.get(provider) ?? 1) - 1;
    if (count <= 0) this.inFlight.delete(provider);
    else this.inFlight.set(provider, count);
    if (answered) this.strikes.delete(provider);
    this.wake();
  }

  /** The provider answered a line with a rate limit: no line goes to it for `retryAfterSeconds`, else the next backoff. */
  pause(provider: string, retryAfterSeconds: number | undefined): void {
    const strikes = this.strikes.get(provider) ?? 0;
    this.strikes.set(provider, strikes + 1);
    const waitMs = retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : Math.min(maxBackoffMs, firstBackoffMs * 2 ** strikes);
    this.pausedUntil.set(provider, Math.max(this.pausedUntil.get(provider) ?? 0, this.now() + waitMs));
  }

  /** How long `provider` stays paused (0: not paused). */
  pauseLeftMs(provider: string): number {
    const until = this.pausedUntil.get(provider);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.pausedUntil.delete(provider);
    return 0;
  }

  /** Lines of `provider` in flight on this instance. */
  inFlightOf(provider: string): number {
    return this.inFlight.get(provider) ?? 0;
  }

  /** Resolves when any slot is released, or after `maxMs`, whichever comes first. */
  changed(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, maxMs));
      this.waiters.push(done);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    if (waiters.length === 0) return;
    for (const waiter of [...waiters]) waiter();
  }
}

const pacers = new WeakMap<AppContext, ProviderPacer>();

/** The instance's pacer (one per app context), bounded by `batches.lines_per_provider` and each provider's connections. */
export function providerPacerOf(context: AppContext, linesPerProvider: number): ProviderPacer {
  let pacer = pacers.get(context);
  if (pacer === undefined) {
    pacer = new ProviderPacer((provider) => providerLineLimit(context.catalog, provider, linesPerProvider));
    pacers.set(context, pacer);
  }
  return pacer;
}

/**
 * A provider's bound for batch lines: `linesPerProvider`, and never more than half of the
 * connections the gateway may open to it (`connections.max`), so that live requests always keep
 * the other half.
 */
export function providerLineLimit(catalog: Catalog, provider: string, linesPerProvider: number): number {
  const connections = catalog.providerById.get(provider)?.connections ?? defaultConnectionLimits;
  return Math.max(1, Math.min(linesPerProvider, Math.floor(connections.max / 2)));
}

/**
 * The provider a line of `model` is paced under: the one routing tries first without
 * preferences, the cheapest available endpoint's (the catalog's first among equals). Lines of a
 * model the catalog no longer has are paced under their model id (they fail at once).
 */
export function pacedProviderOf(catalog: Catalog, model: string): string {
  const config = catalog.modelById.get(model);
  let best: { provider: string; price: bigint } | undefined;
  for (const endpoint of config?.endpoints ?? []) {
    if (!isEndpointAvailable(catalog, endpoint)) continue;
    const price = endpoint.pricing.prompt + endpoint.pricing.completion;
    if (best === undefined || price < best.price) best = { provider: endpoint.provider, price };
  }
  return best?.provider ?? model;
}
