import type { PriceCap } from '../store/repositories/api-keys.js';

/**
 * Who is calling: the authenticated key and its account. Holds only what rarely changes
 * (identity, permissions, price caps); money state is always read from the ledger.
 */
export interface Principal {
  keyId: string;
  accountId: string;
  management: boolean;
  maxPrice: PriceCap | null;
  modelMaxPrices: Record<string, PriceCap>;
  requestsPerMinute: number | null;
}
