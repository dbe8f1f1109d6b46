import { ceilDiv } from '../core/money.js';

/**
 * The cost of `seconds` of video at `nanoPerSecond` (nano-USD), rounded up to the next
 * nano-dollar. Seconds may have up to three decimals (the catalog's durations are numbers);
 * they are scaled to milliseconds before any money is touched, so the arithmetic is exact.
 */
export function priceVideoSeconds(seconds: number, nanoPerSecond: bigint): bigint {
  const milliseconds = BigInt(Math.round(seconds * 1000));
  return ceilDiv(milliseconds * nanoPerSecond, 1000n);
}
