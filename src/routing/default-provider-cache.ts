import type { Kysely } from 'kysely';
import { ExpiringLru } from '../core/expiring-lru.js';
import type { Database } from '../store/database.js';
import { listDefaultProviders } from '../store/repositories/default-providers.js';

/**
 * Each account's default providers, cached so routing costs no database round trip on the hot
 * path. A change through this instance evicts at once; other instances see it within `ttlMs`.
 */
export class DefaultProviderCache {
  private readonly entries: ExpiringLru<string, Map<string, string>>;

  constructor(
    private readonly db: Kysely<Database>,
    ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.entries = new ExpiringLru(ttlMs, 100_000, now);
  }

  /** The cached defaults, or a read of them: a cache hit answers without a promise. */
  get(accountId: string): Map<string, string> | Promise<Map<string, string>> {
    return this.entries.get(accountId) ?? this.load(accountId);
  }

  private async load(accountId: string): Promise<Map<string, string>> {
    const defaults = await listDefaultProviders(this.db, accountId);
    this.entries.set(accountId, defaults);
    return defaults;
  }

  invalidate(accountId: string): void {
    this.entries.delete(accountId);
  }
}
