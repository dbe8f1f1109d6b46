import type { CacheConfig } from '../config/types.js';
import { invalidRequest } from '../errors/gateway-error.js';

/** The request's cache headers as they came (the transports that have none: undefined). */
export interface CacheHeaders {
  /** `x-switchyard-cache`: `on` or `off`. */
  mode: string | undefined;
  /** `x-switchyard-cache-ttl`: the entry's lifetime in whole seconds. */
  ttl: string | undefined;
}

/**
 * Whether this request uses the cache, and for how long a new entry lives (contract §9). Off
 * unless the request says `x-switchyard-cache: on` or its key caches (`cache: true`), which
 * `off` overrides. A lifetime that is not a whole number of seconds from 1 to `max_ttl_s` is
 * refused with a 400 naming the header: a client that asks for a day and gets an hour would not
 * know, and a refusal says what the bound is.
 */
export function planCaching(config: CacheConfig, headers: CacheHeaders, keyCaches: boolean): { ttlMs: number } | undefined {
  const mode = headers.mode?.trim().toLowerCase();
  if (mode !== undefined && mode !== 'on' && mode !== 'off') throw invalidRequest(`x-switchyard-cache must be 'on' or 'off', got '${headers.mode!.slice(0, 40)}'`, 'x-switchyard-cache');
  const ttl = readTtlSeconds(headers.ttl, config.maxTtlSeconds);
  if (mode === 'off' || (mode === undefined && !keyCaches)) return undefined;
  return { ttlMs: (ttl ?? config.defaultTtlSeconds) * 1000 };
}

function readTtlSeconds(header: string | undefined, maxSeconds: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 1 && seconds <= maxSeconds)) {
    throw invalidRequest(`x-switchyard-cache-ttl must be a whole number of seconds from 1 to ${maxSeconds} (the cache's max_ttl_s), got '${text.slice(0, 40)}'`, 'x-switchyard-cache-ttl');
  }
  return seconds;
}
