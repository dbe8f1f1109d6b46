import type { AppContext } from '../app-context.js';
import { listUserMemberships } from '../store/repositories/memberships.js';
import { findMessengerLinkByExternalId } from '../store/repositories/messenger-links.js';
import { findUser } from '../store/repositories/users.js';

/** `GET /auth/session`'s `data` (contract §7): the user and the accounts they belong to. */
export interface SessionView {
  user: { id: string; name: string; email: string | null; telegram_linked: boolean };
  accounts: Array<{ id: string; name: string; role: string }>;
}

export async function describeSession(context: Pick<AppContext, 'store'>, userId: string): Promise<SessionView | undefined> {
  const { db } = context.store;
  const user = await findUser(db, userId);
  if (!user) return undefined;
  const memberships = await listUserMemberships(db, userId);
  // Linked: the user's Telegram account is some account's messenger (signing in with Telegram does it).
  const telegramLinked = user.telegramId !== null && (await findMessengerLinkByExternalId(db, 'telegram', user.telegramId)) !== undefined;
  return {
    user: { id: user.id, name: user.name, email: user.email, telegram_linked: telegramLinked },
    accounts: memberships.map((membership) => ({ id: membership.accountId, name: membership.accountName, role: membership.role })),
  };
}
