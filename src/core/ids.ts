import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// One CSPRNG call fills randomness for 256 ids; ids are not secrets, only unique and unguessable enough.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/**
 * A time-ordered id: `prefix_` + 10 characters of millisecond time + 16 random characters
 * (Crockford base32, the ULID layout). Ordered ids make cursor pagination by id match
 * creation order.
 */
export function createId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let remaining = now;
  for (let index = 0; index < 10; index += 1) {
    time = alphabet[remaining % 32] + time;
    remaining = Math.floor(remaining / 32);
  }
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let random = '';
  for (let index = poolOffset; index < poolOffset + 16; index += 1) random += alphabet[pool[index] & 31];
  poolOffset += 16;
  return `${prefix}_${time}${random}`;
}

export type IdGenerator = (prefix: string) => string;
