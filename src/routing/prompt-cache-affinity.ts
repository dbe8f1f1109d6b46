import type { Clock } from '../core/clock.js';
import type { Candidate } from '../catalog/candidate.js';
import type { EndpointHealth } from './endpoint-health.js';

export interface PromptCacheAffinityOptions {
  /** Most keys remembered; the least recently used is forgotten first. */
  capacity: number;
  /** How long an endpoint is preferred after it served a key (providers keep caches for minutes). */
  ttlMs: number;
  clock: Clock;
}

/**
 * Sticky routing for `prompt_cache_key`: a provider's prompt cache lives on the endpoint that
 * served the prefix, so the next request with the same key goes there first while the cache is
 * likely warm. Bounded, in memory, per instance: losing it costs a cache miss, never an answer.
 */
export class PromptCacheAffinity {
  private readonly entries = new Map<string, { healthKey: string; at: number }>();

  constructor(private readonly options: PromptCacheAffinityOptions) {}

  remember(accountId: string, cacheKey: string, healthKey: string): void {
    const key = `${accountId}\u0000${cacheKey}`;
    this.entries.delete(key);
    this.entries.set(key, { healthKey, at: this.options.clock.now().getTime() });
    if (this.entries.size > this.options.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The endpoint (health key) that served this key recently, if any. */
  lookup(accountId: string, cacheKey: string): string | undefined {
    const key = `${accountId}\u0000${cacheKey}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.options.clock.now().getTime() - entry.at > this.options.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Read again means used again: move it to the young end of the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.healthKey;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Moves the endpoint that served the cache key to the front, when it is still a candidate of the
 * first model and its circuit is not open. Explicit provider preferences of the request win: the
 * caller skips this when the request sets `provider`.
 */
export function preferServedEndpoint(candidates: Candidate[], healthKey: string | undefined, health: EndpointHealth): Candidate[] {
  if (healthKey === undefined || candidates.length < 2) return candidates;
  const firstModel = candidates[0].model.id;
  const index = candidates.findIndex((candidate) => candidate.healthKey === healthKey && candidate.model.id === firstModel);
  if (index <= 0 || health.state(healthKey) === 'open') return candidates;
  return [candidates[index], ...candidates.slice(0, index), ...candidates.slice(index + 1)];
}
