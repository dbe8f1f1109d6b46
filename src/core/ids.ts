import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

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
  const bytes = randomBytes(16);
  let random = '';
  for (const byte of bytes) random += alphabet[byte & 31];
  return `${prefix}_${time}${random}`;
}

export type IdGenerator = (prefix: string) => string;
