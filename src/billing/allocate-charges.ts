import { mapPacked } from '../core/map-packed.js';

/** One settlement as the batch writer sees it, once its reservation row has been taken. */
export interface PendingCharge {
  accountId: string;
  keyId: string | null;
  /** What the reservation held (released now); 0 when the reservation was gone (swept). */
  released: bigint;
  /** The actual cost of the request. */
  cost: bigint;
}

export interface Allocation {
  /** Taken from the balance (and the key's limit). */
  charged: bigint;
  /** What neither the reservation nor the free funds covered. */
  uncollected: bigint;
  /** Which limit fell short, when `uncollected` > 0. */
  shortOf: 'balance' | 'key_limit' | null;
}

/**
 * Charges each settlement its actual cost, in order: its own reservation first, then whatever
 * the account (and key) has that no other reservation holds. A reservation is an admission
 * ceiling, not a cap; only what the funds cannot cover stays uncollected, so balances and key
 * limits never go below zero and the books still add up (charged + uncollected = cost).
 *
 * `accountFree` and `keyFree` hold credits − usage − reserved (limit − usage − reserved) as read
 * under lock before the batch, reservations of this batch still included; a key without a
 * limit is absent from `keyFree`. Both maps are updated as funds are used.
 */
export function allocateCharges(charges: readonly PendingCharge[], accountFree: Map<string, bigint>, keyFree: Map<string, bigint>): Allocation[] {
  return mapPacked(charges, (charge) => {
    const cost = charge.cost > 0n ? charge.cost : 0n;
    const accountAvailable = (accountFree.get(charge.accountId) ?? 0n) + charge.released;
    const keyLimited = charge.keyId !== null && keyFree.has(charge.keyId);
    const keyAvailable = keyLimited ? keyFree.get(charge.keyId!)! + charge.released : cost;
    let charged = cost;
    let shortOf: Allocation['shortOf'] = null;
    if (accountAvailable < charged) {
      charged = accountAvailable > 0n ? accountAvailable : 0n;
      shortOf = 'balance';
    }
    if (keyAvailable < charged) {
      charged = keyAvailable > 0n ? keyAvailable : 0n;
      shortOf = 'key_limit';
    }
    accountFree.set(charge.accountId, accountAvailable - charged);
    if (keyLimited) keyFree.set(charge.keyId!, keyAvailable - charged);
    return { charged, uncollected: cost - charged, shortOf };
  });
}
