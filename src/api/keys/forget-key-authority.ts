import type { AppContext } from '../../app-context.js';

/**
 * After a key's limits changed or it was revoked, on the instance that made the change: the
 * cached key goes, and so do the key's leases, sized under the old limit (issue 45), before the
 * change is answered. Other instances hear of it from the database (`billing/lease-signals.ts`).
 */
export async function forgetKeyAuthority(context: Pick<AppContext, 'keyCache' | 'ledger'>, keyId: string): Promise<void> {
  context.keyCache.deleteKey(keyId);
  await context.ledger.recallKey(keyId);
}
