import { describe, expect, it } from 'vitest';
import type { Principal } from './principal.js';
import { KeyCache } from './key-cache.js';

const principal = (keyId: string) => ({ keyId, accountId: 'acc_1', management: false }) as unknown as Principal;

describe('KeyCache', () => {
  it('answers until the entry is older than ttl, then forgets it', () => {
    let now = 1_000;
    const cache = new KeyCache(10_000, 10, () => now);
    cache.set('h1', principal('key_1'));
    now += 10_000;
    expect(cache.get('h1')?.keyId).toBe('key_1');
    now += 1;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new KeyCache(60_000, 2);
    cache.set('h1', principal('key_1'));
    cache.set('h2', principal('key_2'));
    expect(cache.get('h1')?.keyId).toBe('key_1');
    cache.set('h3', principal('key_3'));
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h1')?.keyId).toBe('key_1');
    expect(cache.get('h3')?.keyId).toBe('key_3');
  });

  it('evicts by hash and by key id at once', () => {
    const cache = new KeyCache(60_000, 10);
    cache.set('h1', principal('key_1'));
    cache.set('h2', principal('key_2'));
    cache.deleteKey('key_1');
    cache.deleteHash('h2');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBeUndefined();
  });
});
