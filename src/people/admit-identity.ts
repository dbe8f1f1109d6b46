import type { AppContext } from '../app-context.js';
import { recordAudit } from '../audit/record-audit.js';
import { postMovement } from '../billing/db/post-movement.js';
import { nanoToUsd } from '../core/money.js';
import { insertAccount } from '../store/repositories/accounts.js';
import { isUniqueViolation } from '../store/database-errors.js';
import { insertMembership } from '../store/repositories/memberships.js';
import { findUserByEmail, findUserByIdentity, findUserByTelegramId, insertUser, insertUserIdentity, type UserRecord } from '../store/repositories/users.js';
import { inviteAdmits, inviteTokenOfPath } from './member-invites.js';

/** Who a sign-in method vouches for. An email is lower case and verified (a mailed link, or the provider's `email_verified`). */
export type Identity =
  | { method: 'email'; email: string }
  | { method: 'telegram'; telegramId: string; name: string }
  | { method: 'oidc'; issuer: string; subject: string; email: string | null; name: string };

export type Admission =
  | { status: 'admitted'; user: UserRecord; created: boolean }
  /** An unknown identity that sign-up does not admit, with the sentence the page shows. */
  | { status: 'refused'; reason: 'signup_closed' | 'invite_only' | 'email_domain_not_allowed'; message: string };

type AdmitContext = Pick<AppContext, 'store' | 'clock' | 'createId' | 'config'>;

/**
 * The user an identity names, made on first sign-in when sign-up is `open` (contract §7): a new
 * user, an account it owns, and the sign-up bonus, once per verified identity — the ledger
 * reference (`signup_bonus:email:<address>` …) decides, so a person who comes back as a new user
 * with the same address or Telegram id gets no second bonus. An OIDC subject whose verified
 * email is already a user's joins that user.
 *
 * While sign-up is `invite`, a sign-in on its way to an invite (`returnTo` is `/invites/{token}`)
 * admits an unknown identity when that token names a pending invite, at this moment, that the
 * identity may accept (no address bound, or its verified one): the user is made with no account
 * of its own and no bonus, and joins by accepting the invite. `returnTo` only names the invite;
 * the store decides.
 */
export async function admitIdentity(context: AdmitContext, identity: Identity, options: { returnTo?: string; ip?: string | null } = {}): Promise<Admission> {
  const existing = await findKnownUser(context, identity);
  if (existing) return { status: 'admitted', user: existing, created: false };
  const refusal = refuseSignUp(context, identity);
  let ownAccount = true;
  if (refusal) {
    const token = refusal.status === 'refused' && refusal.reason === 'invite_only' && options.returnTo !== undefined ? inviteTokenOfPath(options.returnTo) : undefined;
    if (token === undefined || !(await inviteAdmits(context, token, emailOf(identity)))) return refusal;
    ownAccount = false;
  }
  try {
    return { status: 'admitted', user: await createUser(context, identity, ownAccount, options.ip ?? null), created: true };
  } catch (error) {
    // The same person signing up twice at once: the unique index let one in; that is the user.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findKnownUser(context, identity);
    if (!winner) throw error;
    return { status: 'admitted', user: winner, created: false };
  }
}

async function findKnownUser(context: AdmitContext, identity: Identity): Promise<UserRecord | undefined> {
  const { db } = context.store;
  if (identity.method === 'email') return findUserByEmail(db, identity.email);
  if (identity.method === 'telegram') return findUserByTelegramId(db, identity.telegramId);
  const bySubject = await findUserByIdentity(db, { method: 'oidc', issuer: identity.issuer, subject: identity.subject });
  if (bySubject || identity.email === null) return bySubject;
  const byEmail = await findUserByEmail(db, identity.email);
  if (byEmail) {
    try {
      await insertUserIdentity(db, { method: 'oidc', issuer: identity.issuer, subject: identity.subject, userId: byEmail.id, createdAt: context.clock.now().toISOString() });
    } catch (error) {
      // A concurrent sign-in of the same subject joined it first; the subject now names a user.
      if (!isUniqueViolation(error)) throw error;
      return findUserByIdentity(db, { method: 'oidc', issuer: identity.issuer, subject: identity.subject });
    }
  }
  return byEmail;
}

function emailOf(identity: Identity): string | null {
  return identity.method === 'telegram' ? null : identity.email;
}

function refuseSignUp(context: AdmitContext, identity: Identity): Admission | undefined {
  const signup = context.config.signup ?? { mode: 'closed', bonusCredits: 0n, allowedEmailDomains: [] };
  if (signup.mode === 'closed') {
    return { status: 'refused', reason: 'signup_closed', message: 'Sign-up is closed on this service: only people the operator has added can sign in.' };
  }
  if (signup.mode === 'invite') {
    return { status: 'refused', reason: 'invite_only', message: 'This service admits new people by invitation only: ask an account owner for an invite link.' };
  }
  const domains = signup.allowedEmailDomains;
  if (domains.length > 0 && identity.method !== 'telegram') {
    const email = emailOf(identity);
    const domain = email?.slice(email.lastIndexOf('@') + 1);
    if (domain === undefined || !domains.includes(domain)) {
      return { status: 'refused', reason: 'email_domain_not_allowed', message: `Sign-up is open to addresses at ${domains.join(', ')} only.` };
    }
  }
  return undefined;
}

function bonusReference(identity: Identity): string {
  if (identity.method === 'telegram') return `signup_bonus:telegram:${identity.telegramId}`;
  if (identity.method === 'email' || identity.email !== null) return `signup_bonus:email:${identity.email}`;
  return `signup_bonus:oidc:${identity.issuer}|${identity.subject}`;
}

/** Makes the user; with `ownAccount` (open sign-up) also an account it owns and the bonus. */
async function createUser(context: AdmitContext, identity: Identity, ownAccount: boolean, ip: string | null): Promise<UserRecord> {
  const now = context.clock.now().toISOString();
  const email = emailOf(identity);
  const name = identity.method === 'email' ? identity.email.slice(0, identity.email.indexOf('@')) : identity.name;
  const user: UserRecord = { id: context.createId('usr'), name, email, telegramId: identity.method === 'telegram' ? identity.telegramId : null, createdAt: now };
  const accountId = context.createId('acc');
  const bonus = context.config.signup?.bonusCredits ?? 0n;
  await context.store.db.transaction().execute(async (trx) => {
    await insertUser(trx, user);
    if (identity.method === 'oidc') await insertUserIdentity(trx, { method: 'oidc', issuer: identity.issuer, subject: identity.subject, userId: user.id, createdAt: now });
    if (!ownAccount) return;
    await insertAccount(trx, { id: accountId, name: name || 'default', createdAt: now });
    await insertMembership(trx, { userId: user.id, accountId, role: 'owner', createdAt: now });
    if (bonus > 0n) {
      const ledgerId = context.createId('led');
      if (await postMovement(trx, { id: ledgerId, accountId, kind: 'signup_bonus', amount: bonus, reference: bonusReference(identity), note: 'sign-up bonus', createdAt: now })) {
        const details = { amount: nanoToUsd(bonus), method: identity.method };
        await recordAudit(trx, { id: context.createId('aud'), accountId, at: now, actor: { type: 'user', id: user.id }, action: 'money.signup_bonus', target: ledgerId, ip, details });
      }
    }
  });
  return user;
}
