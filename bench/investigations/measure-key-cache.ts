// Nanoseconds per KeyCache lookup (a hit, as on the hot path), median of 7 rounds of 2M lookups
// over 1,000 cached keys. Run on two commits to compare implementations:
//   node --import tsx bench/investigations/measure-key-cache.ts
import { performance } from 'node:perf_hooks';
import { KeyCache } from '../../src/auth/key-cache.js';
import type { Principal } from '../../src/auth/principal.js';

const cache = new KeyCache(10_000, 100_000);
const hashes = Array.from({ length: 1_000 }, (_, index) => `hash-${index.toString(16).padStart(60, '0')}`);
for (const [index, hash] of hashes.entries()) cache.set(hash, { keyId: `key_${index}` } as unknown as Principal);
const rounds: number[] = [];
let found = 0;
for (let round = 0; round < 7; round += 1) {
  const start = performance.now();
  for (let index = 0; index < 2_000_000; index += 1) if (cache.get(hashes[index % 1_000]!)) found += 1;
  rounds.push(((performance.now() - start) * 1e6) / 2_000_000);
}
rounds.sort((a, b) => a - b);
console.log(`KeyCache.get hit: ${rounds[3]!.toFixed(1)} ns (median of 7; ${found} hits)`);
