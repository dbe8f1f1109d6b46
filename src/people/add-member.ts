import type { AppContext } from '../app-context.js';
import type { MemberRole } from '../auth/principal.js';
import { invalidRequest, notFound } from '../errors/gateway-error.js';
import { isUniqueViolation } from '../store/database-errors.js';
import { findAccount } from '../store/repositories/accounts.js';
import { adminActor, recordAudit } from '../audit/record-audit.js';
import { findMembershipRole, lockOwners, upsertMembership } from '../store/repositories/memberships.js';
import { findUserByEmail, insertUser, type UserRecord } from '../store/repositories/users.js';
import { isEmailAddress } from './email-address.js';

/**
 * The operator adds a person to an account by email address (`POST /admin/accounts/{id}/members`,
 * `switchyard admin add-member`): the user is made if the address is new — with no account of
 * its own and no bonus — and gets the role, or has it changed. This is how people come in while
 * sign-up is `closed`; they then sign in by a magic link, or by OpenID Connect with that verified
 * address. A change of role keeps the account's last owner (the owners locked as in
 * `manage-members.ts`), and writes one audit entry by the operator (`member.join` or `member.role`).
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
  const userId = user.id;
  await db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, context.store.dialect, input.accountId);
    const current = await findMembershipRole(trx, userId, input.accountId);
    if (current === input.role) return;
    if (current === 'owner' && owners.length <= 1) throw invalidRequest('An account keeps at least one owner: make another member an owner first', 'role');
    await upsertMembership(trx, { userId, accountId: input.accountId, role: input.role, createdAt: now });
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: input.accountId,
      at: now,
      actor: adminActor,
      action: current === undefined ? 'member.join' : 'member.role',
      target: userId,
      ip: null,
      details: current === undefined ? { role: input.role } : { from: current, to: input.role },
    });
  });
  return { user, accountId: input.accountId, role: input.role };
}

/** The answer of `POST /admin/accounts/{id}/members` and `switchyard admin add-member`. */
export function encodeAddedMember(added: { user: UserRecord; accountId: string; role: MemberRole }): Record<string, unknown> {
  return { user_id: added.user.id, email: added.user.email, account_id: added.accountId, role: added.role };
}
