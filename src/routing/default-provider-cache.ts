import type { Kysely } from 'kysely';
import type { Database } from '../store/database.js';
import { listDefaultProviders } from '../store/repositories/default-providers.js';

interface Entry {
  defaults: Map<string, string>;
  expiresAt: number;
}

/**
 * Each account's default providers, cached so routing costs no database round trip on the hot
 * path. A change through this instance evicts at once; other instances see it within `ttlMs`.
 */
export class DefaultProviderCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(accountId: string): Promise<Map<string, string>> {
    const entry = this.entries.get(accountId);
    if (entry && entry.expiresAt > this.now()) return entry.defaults;
    const defaults = await listDefaultProviders(this.db, accountId);
    if (this.entries.size >= 100_000) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(accountId, { defaults, expiresAt: this.now() + this.ttlMs });
    return defaults;
  }

  invalidate(accountId: string): void {
    this.entries.delete(accountId);
  }
}
