import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { OutageEpisodes } from './log-outage-episodes.js';

/**
 * Expiring counters for rate limits and daily quotas: in memory for one instance, in Redis when
 * REDIS_URL is set so that every instance behind a load balancer counts together.
 */
export interface Counters {
  /** Adds one to `key` (created with the given lifetime on first use) and returns the new value. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** True when the backing store answers. */
  ping(): Promise<boolean>;
  /** Resolves once the store is connected, has failed to connect, or `timeoutMs` passed. */
  settle(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export class MemoryCounters implements Counters {
  private readonly values = new Map<string, { value: number; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async increment(key: string, ttlMs: number): Promise<number> {
    const now = this.now();
    this.sweep(now);
    const entry = this.values.get(key);
    if (!entry || entry.expiresAt <= now) {
      this.values.set(key, { value: 1, expiresAt: now + ttlMs });
      return 1;
    }
    entry.value += 1;
    return entry.value;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async settle(): Promise<void> {}

  async close(): Promise<void> {
    this.values.clear();
  }

  /** Drops expired entries at most once a minute, so memory stays bounded by live windows. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.values) if (entry.expiresAt <= now) this.values.delete(key);
  }
}

// INCR and the first PEXPIRE in one atomic step, so a crash between them cannot leave an
// immortal counter.
const incrementScript = `local value = redis.call('INCR', KEYS[1])
if value == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value`;

/** The script as a command of its own: ioredis sends it by its SHA (EVALSHA), not its text, each time. */
interface CounterRedis extends Redis {
  incrementWithTtl(key: string, ttlMs: string): Promise<number>;
}

export interface RedisCountersOptions {
  prefix?: string;
  /** Where an outage of Redis is told, once per episode (see `OutageEpisodes`). */
  logger?: Logger;
  /** How long Redis must answer before an outage counts as over (default 2 s). */
  recoveryQuietMs?: number;
}

export class RedisCounters implements Counters {
  private readonly redis: CounterRedis;
  private readonly prefix: string;
  private readonly outages: OutageEpisodes;

  constructor(url: string, options: RedisCountersOptions = {}) {
    this.prefix = options.prefix ?? 'switchyard:';
    this.outages = new OutageEpisodes({
      logger: options.logger,
      dependency: 'redis',
      effect: 'requests that need a limit check are refused with 503 service_unavailable',
      quietMs: options.recoveryQuietMs,
    });
    this.redis = new Redis(url, {
      // Fail fast instead of queueing: a limit check that cannot answer must refuse at once (503).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 2000,
      lazyConnect: false,
      // The commands of one event-loop turn share one write to the socket (one per request otherwise).
      enableAutoPipelining: true,
    }) as CounterRedis;
    this.redis.defineCommand('incrementWithTtl', { numberOfKeys: 1, lua: incrementScript });
    // Connection errors surface as failed commands too; the client reconnects by itself. Each
    // is told to the outage log, which says so once per episode.
    this.redis.on('error', (error: Error) => this.outages.failed(error));
    this.redis.on('ready', () => this.outages.answered());
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    try {
      const value = await this.redis.incrementWithTtl(this.prefix + key, String(ttlMs));
      this.outages.answered();
      return Number(value);
    } catch (error) {
      this.outages.failed(error);
      throw error;
    }
  }

  settle(timeoutMs: number): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
      this.redis.once('error', done);
    });
  }

  async ping(): Promise<boolean> {
    try {
      const answered = (await this.redis.ping()) === 'PONG';
      if (answered) this.outages.answered();
      return answered;
    } catch (error) {
      this.outages.failed(error);
      return false;
    }
  }

  async close(): Promise<void> {
    this.outages.close();
    this.redis.disconnect();
  }
}

export function createCounters(redisUrl: string | null, options: RedisCountersOptions = {}): Counters {
  return redisUrl ? new RedisCounters(redisUrl, options) : new MemoryCounters();
}
