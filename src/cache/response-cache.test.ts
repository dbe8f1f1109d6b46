import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { CacheConfig } from '../config/types.js';
import type { Store } from '../store/create-store.js';
import { ResponseCache, type CacheBackend } from './response-cache.js';

const config: CacheConfig = { enabled: true, defaultTtlSeconds: 300, maxTtlSeconds: 3600, maxEntryBytes: 10_000, priceFactorMillionths: 0 };
const answer = { accountId: 'acc_1', model: 'm', provider: 'p', providerModel: 'pm', result: { content: [{ type: 'text' as const, text: 'hi' }], finishReason: 'stop' as const, usage: { promptTokens: 1, completionTokens: 1 } }, cost: 7n };

function cacheOver(backend: Partial<CacheBackend>, nowMs = 1_000_000): ResponseCache {
  const full: CacheBackend = { name: 'database', read: async () => undefined, write: async () => undefined, start: () => undefined, close: async () => undefined, ...backend };
  return new ResponseCache(config, full, { store: {} as Store, clock: { now: () => new Date(nowMs) }, logger: pino({ level: 'silent' }) });
}

describe('ResponseCache', () => {
  it('treats a backend that fails as a miss, and a write that fails as nothing', async () => {
    const cache = cacheOver({ read: () => Promise.reject(new Error('down')), write: () => Promise.reject(new Error('down')) });
    await expect(cache.read('k', 'acc_1')).resolves.toBeUndefined();
    expect(() => cache.store('k', answer, 1000)).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('serves an entry only to its account, only before it expires, and never a corrupt one', async () => {
    let stored = '';
    const writer = cacheOver({ write: async (entry) => void (stored = entry.text) });
    writer.store('k', answer, 60_000);
    await new Promise((resolve) => setImmediate(resolve));
    const read = (nowMs: number) => cacheOver({ read: async () => stored }, nowMs);
    expect((await read(1_000_000).read('k', 'acc_1'))?.cost).toBe(7n);
    expect(await read(1_000_000).read('k', 'acc_2')).toBeUndefined();
    expect(await read(1_060_000).read('k', 'acc_1')).toBeUndefined();
    expect(await cacheOver({ read: async () => '{not json' }).read('k', 'acc_1')).toBeUndefined();
  });

  it('does not store an answer larger than max_entry_bytes', async () => {
    let writes = 0;
    const cache = cacheOver({ write: async () => void (writes += 1) });
    cache.store('k', { ...answer, result: { ...answer.result, content: [{ type: 'text', text: 'é'.repeat(6000) }] } }, 1000);
    cache.store('k', answer, 1000);
    expect(writes).toBe(1);
  });
});
