/**
 * A bounded map whose entries expire `ttlMs` after they were set, least recently read first out
 * when full: a `Map` kept in use order. It replaces lru-cache on the request path, where two
 * costs of that package showed (bench/count-instructions.ts): a read builds its options and
 * status objects and reads a diagnostics channel, and deleting the last entry (the one key of a
 * small deployment, expiring) clears the cache by filling five arrays of `maxEntries` slots —
 * half a million writes for one entry, every `ttlMs`.
 */
export class ExpiringLru<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  /** The most recently used key: reading it again needs no reordering (the common case, one hot key). */
  private newest: K | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value, while its age is at most `ttlMs`; reading it makes it the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() > entry.expiresAt) {
      this.delete(key);
      return undefined;
    }
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    this.newest = key;
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  /** Drops every entry whose value passes `test` (deleting while iterating a Map is safe). */
  deleteWhere(test: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (test(entry.value)) this.delete(key);
  }
}
