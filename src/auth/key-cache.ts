import { ExpiringLru } from '../core/expiring-lru.js';
import type { Principal } from './principal.js';

/**
 * Key hash → principal, so that authentication on the hot path is a hash and a map lookup.
 * Entries expire after `ttlMs` so that a change made by another instance is seen within that
 * bound; this instance's own revocations and limit changes evict at once, and on PostgreSQL so
 * do other instances' (and the admin CLI's), as soon as their notification arrives
 * (`billing/lease-signals.ts`). Bounded to `maxEntries`, least recently used first out.
 */
export class KeyCache {
  private readonly entries: ExpiringLru<string, Principal>;

  constructor(ttlMs: number, maxEntries: number, now: () => number = Date.now) {
    this.entries = new ExpiringLru(ttlMs, maxEntries, now);
  }

  get(hash: string): Principal | undefined {
    return this.entries.get(hash);
  }

  set(hash: string, principal: Principal): void {
    this.entries.set(hash, principal);
  }

  deleteHash(hash: string): void {
    this.entries.delete(hash);
  }

  deleteKey(keyId: string): void {
    this.entries.deleteWhere((principal) => principal.keyId === keyId);
  }
}
