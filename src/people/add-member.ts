import type { AppContext } from '../app-context.js';
import type { MemberRole } from '../auth/principal.js';
import { invalidRequest, notFound } from '../errors/gateway-error.js';
import { isUniqueViolation } from '../store/database-errors.js';
import { findAccount } from '../store/repositories/accounts.js';
import { upsertMembership } from '../store/repositories/memberships.js';
import { findUserByEmail, insertUser, type UserRecord } from '../store/repositories/users.js';
import { isEmailAddress } from './email-address.js';

/**
 * The operator adds a person to an account by email address (`POST /admin/accounts/{id}/members`,
 * `switchyard admin add-member`): the user is made if the address is new — with no account of
 * its own and no bonus — and gets the role, or has it changed. This is how people come in while
 * sign-up is `closed`; they then sign in by a magic link, or by OpenID Connect with that verified
 * address.
 */
export async function addMember(
  context: Pick<AppContext, 'store' | 'clock' | 'createId'>,
  input: { accountId: string; email: string; role: MemberRole },
): Promise<{ user: UserRecord; accountId: string; role: MemberRole }> {
  const { db } = context.store;
  const email = input.email.trim().toLowerCase();
  if (!isEmailAddress(email)) throw invalidRequest('Expected an email address', 'email');
  if (!(await findAccount(db, input.accountId))) throw notFound(`Account '${input.accountId}'`);
  const now = context.clock.now().toISOString();
  let user = await findUserByEmail(db, email);
  if (!user) {
    const created: UserRecord = { id: context.createId('usr'), name: email.slice(0, email.indexOf('@')), email, telegramId: null, createdAt: now };
    try {
      await insertUser(db, created);
      user = created;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      user = await findUserByEmail(db, email);
      if (!user) throw error;
    }
  }
  await upsertMembership(db, { userId: user.id, accountId: input.accountId, role: input.role, createdAt: now });
  return { user, accountId: input.accountId, role: input.role };
}

/** The answer of `POST /admin/accounts/{id}/members` and `switchyard admin add-member`. */
export function encodeAddedMember(added: { user: UserRecord; accountId: string; role: MemberRole }): Record<string, unknown> {
  return { user_id: added.user.id, email: added.user.email, account_id: added.accountId, role: added.role };
}
