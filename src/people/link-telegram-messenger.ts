import type { AppContext } from '../app-context.js';
import { listUserMemberships } from '../store/repositories/memberships.js';
import { findMessengerLink, findMessengerLinkByExternalId, upsertMessengerLink } from '../store/repositories/messenger-links.js';

/**
 * Signing in with Telegram links that Telegram account as the messenger of the user's first
 * owned account (contract §7), as the bot's /start with a link code would: the chat of a
 * private conversation with the bot has the user's id. Nothing changes when the Telegram account
 * already holds a link (a chat links at most one account) or the account is linked already.
 */
export async function linkTelegramMessenger(context: Pick<AppContext, 'store' | 'clock'>, userId: string, telegramId: string): Promise<void> {
  const { db } = context.store;
  const owned = (await listUserMemberships(db, userId)).find((membership) => membership.role === 'owner');
  if (!owned) return;
  if (await findMessengerLinkByExternalId(db, 'telegram', telegramId)) return;
  if (await findMessengerLink(db, owned.accountId)) return;
  await upsertMessengerLink(db, { accountId: owned.accountId, messenger: 'telegram', externalId: telegramId, linkedAt: context.clock.now().toISOString() });
}
