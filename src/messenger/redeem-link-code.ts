import type { AppContext } from '../app-context.js';
import { deleteLinkCode, findLinkCode } from '../store/repositories/link-codes.js';
import { findMessengerLinkByExternalId, upsertMessengerLink } from '../store/repositories/messenger-links.js';
import { hashLinkCode } from './link-codes.js';

export type RedeemResult =
  | { status: 'linked'; accountId: string }
  | { status: 'invalid' }
  | { status: 'expired' }
  /** The chat already holds another account's link; the code stays valid for after an /unlink. */
  | { status: 'chat_taken' };

/**
 * Redeems a link code for a messenger chat: consumes it exactly once and links the chat to the
 * code's account, in one transaction. Of two concurrent redemptions only the one whose delete
 * removed the row links; the other sees an unknown code.
 */
export async function redeemLinkCode(
  context: Pick<AppContext, 'store' | 'clock'>,
  code: string,
  chat: { messenger: string; externalId: string },
): Promise<RedeemResult> {
  const codeHash = hashLinkCode(code);
  const now = context.clock.now().toISOString();
  return context.store.db.transaction().execute(async (trx): Promise<RedeemResult> => {
    const found = await findLinkCode(trx, codeHash);
    if (!found) return { status: 'invalid' };
    if (found.expiresAt <= now) {
      await deleteLinkCode(trx, codeHash);
      return { status: 'expired' };
    }
    const existing = await findMessengerLinkByExternalId(trx, chat.messenger, chat.externalId);
    if (existing && existing.accountId !== found.accountId) return { status: 'chat_taken' };
    if (!(await deleteLinkCode(trx, codeHash))) return { status: 'invalid' };
    await upsertMessengerLink(trx, { accountId: found.accountId, messenger: chat.messenger, externalId: chat.externalId, linkedAt: now });
    return { status: 'linked', accountId: found.accountId };
  });
}
