import { ceilDiv } from '../core/money.js';
import type { StripeConfig } from '../config/types.js';

export const nanoPerCent = 10_000_000n;
const nanoPerPercentUnit = 100n * 1_000_000_000n;

/**
 * The fee paid on top of a top-up: `fee_percent` of the credits plus `fee_fixed`, rounded up to
 * the cent (the card is charged in cents), exact.
 */
export function computeFee(credits: bigint, settings: Pick<StripeConfig, 'feePercentNano' | 'feeFixed'>): bigint {
  const percent = ceilDiv(credits * settings.feePercentNano, nanoPerPercentUnit);
  return ceilDiv(percent, nanoPerCent) * nanoPerCent + settings.feeFixed;
}

/** nano-USD → cents; only for amounts already checked to be whole cents. */
export function nanoToCents(nano: bigint): number {
  if (nano % nanoPerCent !== 0n) throw new RangeError(`not whole cents: ${nano}`);
  return Number(nano / nanoPerCent);
}
