import type { EndpointPricing } from '../config/types.js';
import { costOfUnits } from '../core/money.js';

/**
 * Media prices are known before the provider is called, so the reservation is the exact cost:
 * speech by input characters, images by count (plus any per-request price). Quotes, reservations
 * and settlements all come from here, so a quote is exactly what the request reserves.
 */
export function priceSpeech(pricing: EndpointPricing, characters: number): bigint {
  return costOfUnits(characters, pricing.characters ?? 0n) + (pricing.request ?? 0n);
}

export function priceImages(pricing: EndpointPricing, count: number): bigint {
  return BigInt(count) * (pricing.image ?? 0n) + (pricing.request ?? 0n);
}
