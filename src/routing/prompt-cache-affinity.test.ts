import { describe, expect, it } from 'vitest';
import type { Candidate } from '../catalog/candidate.js';
import { EndpointHealth } from './endpoint-health.js';
import { PromptCacheAffinity, preferServedEndpoint } from './prompt-cache-affinity.js';

function clockAt(start: number) {
  const clock = { time: start, now: () => new Date(clock.time) };
  return clock;
}

const candidate = (model: string, healthKey: string) => ({ model: { id: model }, healthKey }) as unknown as Candidate;

describe('PromptCacheAffinity', () => {
  it('remembers per account which endpoint served a key, until the time to live passes', () => {
    const clock = clockAt(0);
    const affinity = new PromptCacheAffinity({ capacity: 10, ttlMs: 1000, clock });
    affinity.remember('acc1', 'k', 'p1:m');
    expect(affinity.lookup('acc1', 'k')).toBe('p1:m');
    expect(affinity.lookup('acc2', 'k')).toBeUndefined();
    clock.time = 1001;
    expect(affinity.lookup('acc1', 'k')).toBeUndefined();
    expect(affinity.size).toBe(0);
  });

  it('forgets the least recently used key beyond its capacity', () => {
    const affinity = new PromptCacheAffinity({ capacity: 2, ttlMs: 60_000, clock: clockAt(0) });
    affinity.remember('a', 'k1', 'e1');
    affinity.remember('a', 'k2', 'e2');
    affinity.lookup('a', 'k1');
    affinity.remember('a', 'k3', 'e3');
    expect(affinity.size).toBe(2);
    expect(affinity.lookup('a', 'k2')).toBeUndefined();
    expect(affinity.lookup('a', 'k1')).toBe('e1');
    expect(affinity.lookup('a', 'k3')).toBe('e3');
  });
});

describe('preferServedEndpoint', () => {
  const list = [candidate('m', 'cheap'), candidate('m', 'dear'), candidate('fallback', 'other')];

  it('moves the endpoint that served the key first', () => {
    const health = new EndpointHealth({ failureThreshold: 1, coolDownMs: 30_000 });
    expect(preferServedEndpoint(list, 'dear', health).map((entry) => entry.healthKey)).toEqual(['dear', 'cheap', 'other']);
  });

  it('keeps the order for an unknown key, another model, or an open circuit', () => {
    const health = new EndpointHealth({ failureThreshold: 1, coolDownMs: 30_000 });
    expect(preferServedEndpoint(list, undefined, health)).toBe(list);
    expect(preferServedEndpoint(list, 'other', health)).toBe(list);
    health.begin('dear');
    health.recordFailure('dear');
    expect(preferServedEndpoint(list, 'dear', health)).toBe(list);
  });
});
