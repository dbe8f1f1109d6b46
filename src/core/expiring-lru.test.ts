import { describe, expect, it } from 'vitest';
import { ExpiringLru } from './expiring-lru.js';

describe('ExpiringLru', () => {
  it('keeps an entry for ttl after it was set, reading it does not extend that', () => {
    let now = 0;
    const cache = new ExpiringLru<string, number>(100, 10, () => now);
    cache.set('a', 1);
    now = 60;
    expect(cache.get('a')).toBe(1);
    now = 100;
    expect(cache.get('a')).toBe(1);
    now = 101;
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
  });

  it('drops the least recently read entry when full, however often the newest was read', () => {
    const cache = new ExpiringLru<string, number>(1_000, 3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('c')).toBe(3);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.get('b')).toBeUndefined();
    cache.set('e', 5);
    expect(cache.get('c')).toBeUndefined();
    expect([cache.get('a'), cache.get('d'), cache.get('e')]).toEqual([1, 4, 5]);
  });

  it('deletes one key, or every entry whose value matches', () => {
    const cache = new ExpiringLru<string, { owner: string }>(1_000, 10);
    cache.set('a', { owner: 'x' });
    cache.set('b', { owner: 'y' });
    cache.set('c', { owner: 'x' });
    cache.delete('b');
    expect(cache.get('b')).toBeUndefined();
    cache.deleteWhere((value) => value.owner === 'x');
    expect([cache.get('a'), cache.get('c')]).toEqual([undefined, undefined]);
    cache.set('b', { owner: 'y' });
    expect(cache.get('b')).toEqual({ owner: 'y' });
  });
});
