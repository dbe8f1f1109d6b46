import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CacheConfig } from '../config/types.js';
import type { Clock } from '../core/clock.js';
import type { Store } from '../store/create-store.js';
import { OutageEpisodes } from '../store/log-outage-episodes.js';
import { PeriodicRound } from '../store/periodic-round.js';
import { runInBatches } from '../store/run-in-batches.js';
import { decodeCachedAnswer, encodeCachedAnswer, type CachedAnswer } from './cached-answer.js';
import { addCacheSavings } from './db/cache-savings.js';
import { deleteExpiredCacheEntries, readCacheEntry, writeCacheEntry } from './db/response-cache-entries.js';

/** Where entries are kept: Redis when `REDIS_URL` is set, else the database (contract §9). */
export interface CacheBackend {
  readonly name: 'redis' | 'database';
  read(key: string, nowMs: number): Promise<string | undefined>;
  write(entry: { key: string; accountId: string; text: string; storedAt: number; expiresAt: number }): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

export interface ResponseCacheDependencies {
  store: Store;
  clock: Clock;
  logger: Logger;
}

/**
 * The response cache (contract §9, src/cache/README.md): reads and writes whole answers under a
 * key that folds in the account (`cache-key.ts`). It never fails a request: a read that fails is
 * a miss, a write that fails is dropped; an outage of the backend is logged once per episode.
 */
export class ResponseCache {
  private readonly outages: OutageEpisodes;
  /** Savings not written yet, per account, day and key: one statement a second rather than one per hit. */
  private pendingSavings = new Map<string, { accountId: string; day: string; keyId: string; hits: number; saved: bigint }>();
  private savingsTimer: NodeJS.Timeout | undefined;
  private savingsWrite: Promise<void> = Promise.resolve();

  constructor(
    readonly config: CacheConfig,
    private readonly backend: CacheBackend,
    private readonly dependencies: ResponseCacheDependencies,
  ) {
    this.outages = new OutageEpisodes({ logger: dependencies.logger, dependency: `response cache (${backend.name})`, effect: 'cached requests go to the provider' });
  }

  get backendName(): CacheBackend['name'] {
    return this.backend.name;
  }

  /** The account's live entry under `key`; undefined on a miss, an expired entry, another account's, or any failure. */
  async read(key: string, accountId: string): Promise<CachedAnswer | undefined> {
    const nowMs = this.dependencies.clock.now().getTime();
    let text: string | undefined;
    try {
      text = await this.backend.read(key, nowMs);
      this.outages.answered();
    } catch (error) {
      this.outages.failed(error);
      return undefined;
    }
    if (text === undefined) return undefined;
    const answer = decodeCachedAnswer(text);
    // The key already folds in the account; comparing the stored one as well costs nothing.
    if (answer === undefined || answer.accountId !== accountId || answer.expiresAt <= nowMs) return undefined;
    return answer;
  }

  /**
   * Stores a complete answer for `ttlMs` unless its JSON is larger than `max_entry_bytes`. Does
   * not wait for the backend and never throws: the request that produced it is already answered.
   */
  store(key: string, answer: Omit<CachedAnswer, 'storedAt' | 'expiresAt'>, ttlMs: number): void {
    const storedAt = this.dependencies.clock.now().getTime();
    const text = encodeCachedAnswer({ ...answer, storedAt, expiresAt: storedAt + ttlMs });
    // Length first: a string's UTF-8 size is at least its length and at most three times it.
    if (text.length > this.config.maxEntryBytes || (text.length * 3 > this.config.maxEntryBytes && Buffer.byteLength(text) > this.config.maxEntryBytes)) return;
    this.backend.write({ key, accountId: answer.accountId, text, storedAt, expiresAt: storedAt + ttlMs }).then(
      () => this.outages.answered(),
      (error: unknown) => this.outages.failed(error),
    );
  }

  /** A hit's saving (nano-USD), for `/usage`: added up in memory and written within a second. */
  addSaving(accountId: string, keyId: string | null, saved: bigint): void {
    const day = this.dependencies.clock.now().toISOString().slice(0, 10);
    const id = `${accountId}\n${day}\n${keyId ?? ''}`;
    const pending = this.pendingSavings.get(id);
    if (pending) {
      pending.hits += 1;
      pending.saved += saved;
    } else this.pendingSavings.set(id, { accountId, day, keyId: keyId ?? '', hits: 1, saved });
    this.savingsTimer ??= setTimeout(() => void this.flushSavings(), 1000).unref();
  }

  /**
   * Writes the savings added so far. Reporting only: a batch the database refuses is logged at
   * debug and dropped (an understated saving, never money).
   */
  flushSavings(): Promise<void> {
    clearTimeout(this.savingsTimer);
    this.savingsTimer = undefined;
    const batch = [...this.pendingSavings.values()];
    this.pendingSavings = new Map();
    if (batch.length > 0) {
      this.savingsWrite = this.savingsWrite.then(() =>
        addCacheSavings(this.dependencies.store.db, batch).catch((error: unknown) => this.dependencies.logger.debug({ err: error }, 'response cache savings were not recorded')),
      );
    }
    return this.savingsWrite;
  }

  start(): void {
    this.backend.start();
  }

  async close(): Promise<void> {
    await this.flushSavings();
    this.outages.close();
    await this.backend.close();
  }
}

/** The cache the config asks for, or null when it is off. */
export function createResponseCache(config: CacheConfig | undefined, redisUrl: string | undefined, dependencies: ResponseCacheDependencies): ResponseCache | null {
  if (config === undefined || !config.enabled) return null;
  const backend = redisUrl ? new RedisCacheBackend(redisUrl) : new DatabaseCacheBackend(dependencies);
  return new ResponseCache(config, backend, dependencies);
}

/** Entries as Redis strings that expire by themselves (`SET … PX`). */
export class RedisCacheBackend implements CacheBackend {
  readonly name = 'redis';
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'switchyard:cache:',
  ) {
    // As the counters' connection (store/counters.ts): fail fast rather than queue, so a cache
    // that cannot answer is a miss at once, not a request that waits.
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000, connectTimeout: 2000, enableAutoPipelining: true });
    // Failed commands are told to the cache's outage log; connection errors surface there too.
    this.redis.on('error', () => undefined);
  }

  async read(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + key)) ?? undefined;
  }

  async write(entry: { key: string; text: string; storedAt: number; expiresAt: number }): Promise<void> {
    await this.redis.set(this.prefix + entry.key, entry.text, 'PX', Math.max(1, entry.expiresAt - entry.storedAt));
  }

  start(): void {}

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** How often an instance deletes expired rows, and how many per statement. */
const sweepIntervalMs = 60_000;
const sweepBatch = 500;

/** Entries as rows of `response_cache`; expired rows are deleted in small batches by a periodic round. */
export class DatabaseCacheBackend implements CacheBackend {
  readonly name = 'database';
  private readonly sweep: PeriodicRound;

  constructor(private readonly dependencies: ResponseCacheDependencies) {
    this.sweep = new PeriodicRound({ name: 'response cache sweep', intervalMs: sweepIntervalMs, first: 'spread', logger: dependencies.logger }, () => this.sweepOnce());
  }

  read(key: string, nowMs: number): Promise<string | undefined> {
    return readCacheEntry(this.dependencies.store.db, key, nowMs);
  }

  write(entry: { key: string; accountId: string; text: string; storedAt: number; expiresAt: number }): Promise<void> {
    return writeCacheEntry(this.dependencies.store.db, entry);
  }

  /** One round: expired rows deleted, at most 20 batches (the rest waits for the next round). */
  async sweepOnce(): Promise<number> {
    const nowMs = this.dependencies.clock.now().getTime();
    const run = await runInBatches((limit) => deleteExpiredCacheEntries(this.dependencies.store.db, nowMs, limit), { batchSize: sweepBatch, maxBatches: 20 });
    return run.done;
  }

  start(): void {
    this.sweep.start();
  }

  async close(): Promise<void> {
    await this.sweep.stop();
  }
}
