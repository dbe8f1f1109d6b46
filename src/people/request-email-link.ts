import type { AppContext } from '../app-context.js';
import { countEmailTokensSince, insertEmailToken, lockEmailSender, sweepEmailSignIns } from '../store/repositories/email-sign-in-tokens.js';
import { createSecret, hashSecret } from './session-secrets.js';

/** A magic link works once, within 15 minutes (contract §7). */
export const emailLinkTtlMs = 15 * 60_000;
/** At most this many links are mailed to one address per hour. */
export const emailLinksPerHour = 5;
const hourMs = 3600_000;

/**
 * Makes a magic link's token for an address, or null when the address has had its 5 links this
 * hour. Whether the address belongs to a user is not looked at: the answer and the work are the
 * same for everyone, and who the link signs in is decided when it is used.
 */
export async function requestEmailLink(context: Pick<AppContext, 'store' | 'clock'>, email: string, returnTo: string): Promise<string | null> {
  const now = context.clock.now();
  const hourAgo = new Date(now.getTime() - hourMs).toISOString();
  const token = createSecret();
  const issued = await context.store.db.transaction().execute(async (trx) => {
    await lockEmailSender(trx, email, now.toISOString());
    if ((await countEmailTokensSince(trx, email, hourAgo)) >= emailLinksPerHour) return null;
    await insertEmailToken(trx, { tokenHash: hashSecret(token), email, returnTo, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + emailLinkTtlMs).toISOString() });
    return token;
  });
  // After the commit, holding no address's row: the sweep takes other addresses' rows one by one.
  await sweepEmailSignIns(context.store.db, hourAgo, 100);
  return issued;
}
