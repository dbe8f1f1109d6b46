import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// One CSPRNG call fills randomness for 256 ids; ids are not secrets, only unique and unguessable enough.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

// The last id's time and random digits (base-32 values): the next id in the same millisecond
// (or after the clock stepped back) is that id plus a random step, so ids are strictly increasing.
let lastTime = -1;
const lastRandom = new Uint8Array(16);

/**
 * The low digits of the random part that a step within one millisecond draws afresh: 13 base-32
 * digits, 65 random bits, so that an id tells nothing usable about its neighbours (the next one is
 * somewhere in the following 2^65 values), where ULID's monotonic mode adds one and makes them
 * consecutive.
 */
const stepDigits = 13;

/**
 * A time-ordered, monotonic id: `prefix_` + 10 characters of millisecond time + 16 random
 * characters (Crockford base32, the ULID layout). Within one millisecond, and if the clock steps
 * back, the random part is the previous id's plus a fresh random step (rather than plus one, as
 * in ULID's monotonic mode, which makes neighbours guessable), so cursor pagination by id matches
 * creation order within this process and the time prefix stays the request log's clock
 * (`id-time.ts`). An explicit `now` (tests that encode a given time) gets fresh randomness and
 * leaves the sequence alone.
 */
export function createId(prefix: string, now?: number): string {
  if (now !== undefined) {
    const digits = new Uint8Array(16);
    fillRandom(digits);
    return `${prefix}_${encodeTime(now)}${encodeRandom(digits)}`;
  }
  let time = Math.max(Date.now(), lastTime);
  if (time === lastTime) {
    if (!addRandomStep(lastRandom)) {
      time += 1;
      fillRandom(lastRandom);
    }
  } else {
    fillRandom(lastRandom);
  }
  lastTime = time;
  return `${prefix}_${encodeTime(time)}${encodeRandom(lastRandom)}`;
}

export type IdGenerator = (prefix: string) => string;

function encodeTime(now: number): string {
  let text = '';
  let remaining = now;
  for (let index = 0; index < 10; index += 1) {
    text = alphabet[remaining % 32] + text;
    remaining = Math.floor(remaining / 32);
  }
  return text;
}

function encodeRandom(digits: Uint8Array): string {
  let text = '';
  for (const digit of digits) text += alphabet[digit];
  return text;
}

/** Sixteen fresh bytes of the pool, refilled from the CSPRNG when spent; returns their offset. */
function takeRandom(): number {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 16;
  return poolOffset - 16;
}

function fillRandom(digits: Uint8Array): void {
  const offset = takeRandom();
  for (let index = 0; index < 16; index += 1) digits[index] = pool[offset + index] & 31;
}

/** Adds one plus a random number of `stepDigits` digits to a base-32 number; false when it overflowed (past 80 bits). */
function addRandomStep(digits: Uint8Array): boolean {
  const offset = takeRandom();
  let carry = 1;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    const step = index >= digits.length - stepDigits ? pool[offset + index] & 31 : 0;
    const sum = digits[index] + step + carry;
    digits[index] = sum & 31;
    carry = sum >> 5;
  }
  return carry === 0;
}
