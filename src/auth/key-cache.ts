import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Key hash → principal, so that authentication on the hot path is a hash and a map lookup.
 * Entries expire after `ttlMs` so that a change made by another instance is seen within that
 * bound; this instance's own revocations and limit changes evict at once.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string): Principal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  set(hash: string, principal: Principal): void {
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal, expiresAt: this.now() + this.ttlMs });
  }

  deleteHash(hash: string): void {
    this.entries.delete(hash);
  }

  deleteKey(keyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.principal.keyId === keyId) this.entries.delete(hash);
    }
  }
}
