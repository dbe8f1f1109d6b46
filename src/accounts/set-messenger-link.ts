import type { AppContext } from '../app-context.js';
import { notFound } from '../errors/gateway-error.js';
import { findAccount } from '../store/repositories/accounts.js';
import { deleteMessengerLink, upsertMessengerLink } from '../store/repositories/messenger-links.js';

/** The operator's override of contract §1: marks the account linked (or not) without a messenger round trip. */
export async function setMessengerLink(context: Pick<AppContext, 'store' | 'clock'>, accountId: string, linked: boolean): Promise<void> {
  const { db } = context.store;
  if (!(await findAccount(db, accountId))) throw notFound(`Account '${accountId}'`);
  if (linked) await upsertMessengerLink(db, { accountId, messenger: 'admin', externalId: null, linkedAt: context.clock.now().toISOString() });
  else await deleteMessengerLink(db, accountId);
}
