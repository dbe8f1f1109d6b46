import type { AppContext } from '../../../app-context.js';
import type { Principal } from '../../../auth/principal.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import { readSpendable } from '../../../billing/db/ledger.js';
import { measureFreeStoredResponses } from '../../../store/repositories/stored-responses.js';
import { responseStorageOf } from '../response-storage-settings.js';

/**
 * A warm-up (`generate: false`) runs no model and is charged nothing, yet a stored one keeps the
 * request for the retention period. So that no one stores for free without bound: refused with
 * the 402 `POST /v1/responses` would answer when the account (or the key's limit) has nothing
 * left unspent, and, when it would be stored, refused with 429 once the account's free stored
 * responses reach `maxFreeStoredPerAccount` or their bytes, with this one's, pass
 * `maxFreeStoredBytesPerAccount`. Concurrent warm-ups of one account may each pass the check
 * before the others are written: the bound holds to within the warm-ups in flight.
 */
export async function admitWarmUp(context: AppContext, principal: Principal, stored: boolean, bodyBytes: number): Promise<void> {
  // Unspent rather than spendable: a warm-up reserves nothing, so what other requests hold (or a lease) does not matter.
  if ((await readSpendable(context.store.db, principal.accountId, principal.keyId, false)) <= 0n) {
    throw new GatewayError('insufficient_balance', 'Insufficient balance: a warm-up (generate: false) is free but needs funds on the account and the key, as any request does. Add credits.', {
      metadata: { requested: 0, available: 0 },
    });
  }
  if (!stored) return;
  const settings = responseStorageOf(context);
  const held = await measureFreeStoredResponses(context.store.db, principal.accountId, context.clock.now().toISOString());
  if (held.count >= settings.maxFreeStoredPerAccount || held.bytes + bodyBytes > settings.maxFreeStoredBytesPerAccount) {
    throw new GatewayError(
      'rate_limited',
      `This account keeps ${held.count} stored warm-ups (${held.bytes} bytes), the most allowed is ${settings.maxFreeStoredPerAccount} and ${settings.maxFreeStoredBytesPerAccount} bytes: send warm-ups with store: false, or delete stored responses (DELETE /v1/responses/{id}) or let them expire`,
      { metadata: { limit_type: 'free_stored_responses' } },
    );
  }
}
