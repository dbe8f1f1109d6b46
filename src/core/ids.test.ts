import { describe, expect, it } from 'vitest';
import { readIdTime } from './id-time.js';
import { createId } from './ids.js';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The 80-bit random part of an id (its last 16 characters) as a number. */
function randomPart(id: string): bigint {
  let value = 0n;
  for (const character of id.slice(-16)) value = value * 32n + BigInt(alphabet.indexOf(character));
  return value;
}

function countBits(value: bigint): number {
  let count = 0;
  for (let rest = value; rest > 0n; rest >>= 1n) count += Number(rest & 1n);
  return count;
}

/** Consecutive ids made in the same millisecond (same time prefix), as pairs. */
function sameMillisecondPairs(ids: string[]): Array<[string, string]> {
  return ids
    .slice(1)
    .map((id, index): [string, string] => [ids[index], id])
    .filter(([left, right]) => left.slice(4, 14) === right.slice(4, 14));
}

describe('createId', () => {
  it('is strictly increasing across many ids in the same millisecond (cursor pagination follows creation order)', () => {
    const ids = Array.from({ length: 10_000 }, () => createId('req'));
    for (let index = 1; index < ids.length; index += 1) expect(ids[index] > ids[index - 1]).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives an id no guessable neighbour: the next id of the same millisecond is a fresh random step away', () => {
    const ids = Array.from({ length: 5_000 }, () => createId('req'));
    const pairs = sameMillisecondPairs(ids);
    expect(pairs.length).toBeGreaterThan(100);
    const steps = pairs.map(([left, right]) => randomPart(right) - randomPart(left));
    // A step is drawn from 2^65 values: one below 2^40 has a chance of 2^-25 per pair.
    for (const step of steps) expect(step > 2n ** 40n).toBe(true);
    expect(new Set(steps).size).toBe(steps.length);
    // The random parts of neighbours differ in about half of their 65 low bits, not in one or two.
    const differingBits = pairs.map(([left, right]) => countBits((randomPart(left) ^ randomPart(right)) & (2n ** 65n - 1n)));
    const mean = differingBits.reduce((sum, bits) => sum + bits, 0) / differingBits.length;
    expect(mean).toBeGreaterThan(25);
    expect(mean).toBeLessThan(40);
  });

  it('keeps the time prefix the clock that the request log reads (id-time.ts)', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2_000 }, () => createId('req'));
    const after = Date.now();
    for (const id of ids) {
      const time = readIdTime(id) ?? -1;
      expect(time).toBeGreaterThanOrEqual(before);
      // An overflow of the random part within one millisecond moves the id one millisecond on.
      expect(time).toBeLessThanOrEqual(after + 1);
    }
  });

  it('keeps the ULID layout', () => {
    expect(createId('req')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
