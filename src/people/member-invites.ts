import type { AppContext } from '../app-context.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { MemberRole, Principal } from '../auth/principal.js';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error.js';
import { findAccount } from '../store/repositories/accounts.js';
import { consumeInvite, findInviteByTokenHash, insertInvite, revokeInvite, type InviteRecord } from '../store/repositories/member-invites.js';
import { findMembershipRole, insertMembership } from '../store/repositories/memberships.js';
import type { UserRecord } from '../store/repositories/users.js';
import { isEmailAddress } from './email-address.js';
import { createSecret, hashSecret } from './session-secrets.js';

/** An invite link works once, within 7 days (contract §8). */
export const inviteTtlMs = 7 * 24 * 3600_000;

type InviteContext = Pick<AppContext, 'store' | 'clock' | 'createId' | 'config'>;

/** Where an invite stands: only `pending` may be accepted. */
export type InviteStatus = 'pending' | 'used' | 'revoked' | 'expired';

export function inviteStatus(invite: InviteRecord, now: Date): InviteStatus {
  if (invite.usedAt !== null) return 'used';
  if (invite.revokedAt !== null) return 'revoked';
  return Date.parse(invite.expiresAt) <= now.getTime() ? 'expired' : 'pending';
}

/** The page's link for a token: the configured origin, never a request's Host header. */
export function inviteUrl(context: Pick<AppContext, 'config'>, token: string): string {
  const publicUrl = context.config.server.publicUrl;
  if (!publicUrl) throw new GatewayError('service_unavailable', 'Invites need SWITCHYARD_PUBLIC_URL (server.public_url): the link names the page');
  return `${publicUrl}/invites/${token}`;
}

/**
 * `POST /v1/members/invites`: an owner or admin (or a management key) invites someone with a
 * role; an admin may not invite an owner. Only the token's hash is stored; the link is answered once.
 */
export async function createInvite(
  context: InviteContext,
  principal: Principal,
  input: { email?: string; role: MemberRole; ip: string | null },
): Promise<{ invite: InviteRecord; url: string }> {
  if (input.role === 'owner' && principal.session && principal.session.role !== 'owner') {
    throw new GatewayError('forbidden', 'Only an owner invites an owner');
  }
  const email = input.email === undefined ? null : input.email.trim().toLowerCase();
  if (email !== null && !isEmailAddress(email)) throw invalidRequest('Expected an email address', 'email');
  const token = createSecret();
  const url = inviteUrl(context, token);
  const now = context.clock.now();
  const actor = actorOf(principal);
  const invite: InviteRecord = {
    id: context.createId('inv'),
    accountId: principal.accountId,
    email,
    role: input.role,
    createdBy: actor.id,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + inviteTtlMs).toISOString(),
    usedAt: null,
    usedByUserId: null,
    revokedAt: null,
  };
  await context.store.db.transaction().execute(async (trx) => {
    await insertInvite(trx, { ...invite, tokenHash: hashSecret(token) });
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: principal.accountId,
      at: invite.createdAt,
      actor,
      action: 'member.invite',
      target: invite.id,
      ip: input.ip,
      details: { role: invite.role, email },
    });
  });
  return { invite, url };
}

/** `DELETE /v1/members/invites/{id}`: a pending invite stops working; a used, revoked or unknown one is 404. */
export async function withdrawInvite(context: InviteContext, principal: Principal, id: string, ip: string | null): Promise<void> {
  const now = context.clock.now().toISOString();
  await context.store.db.transaction().execute(async (trx) => {
    const revoked = await revokeInvite(trx, principal.accountId, id, now);
    if (!revoked) throw notFound(`Invite '${id}'`);
    await recordAudit(trx, { id: context.createId('aud'), accountId: principal.accountId, at: now, actor: actorOf(principal), action: 'member.invite_revoke', target: id, ip, details: { role: revoked.role, email: revoked.email } });
  });
}

/** The invite a link's token names, or undefined. */
export async function findInvite(context: Pick<AppContext, 'store'>, token: string): Promise<InviteRecord | undefined> {
  return findInviteByTokenHash(context.store.db, hashSecret(token));
}

/** Whether the invite is bound to an address and the user has another one (or none). */
function emailRefused(invite: InviteRecord, email: string | null): boolean {
  return invite.email !== null && invite.email !== email;
}

/**
 * Whether an invite may let an unknown identity sign up while sign-up is `invite` (contract §8):
 * the token must name a pending invite at the moment of sign-in, bound to no address or to the
 * identity's verified one. The token comes from the sign-in's `return_to`, but is trusted only
 * once this check of the store has passed.
 */
export async function inviteAdmits(context: Pick<AppContext, 'store' | 'clock'>, token: string, email: string | null): Promise<boolean> {
  const invite = await findInvite(context, token);
  if (!invite || inviteStatus(invite, context.clock.now()) !== 'pending') return false;
  return !emailRefused(invite, email);
}

/** The token of an invite page path (`/invites/{token}`, as `return_to`), or undefined. */
export function inviteTokenOfPath(path: string): string | undefined {
  return /^\/invites\/([A-Za-z0-9_-]{43})(?:[/?#]|$)/.exec(path)?.[1];
}

/**
 * `POST /invites/{token}/accept`: the signed-in user joins the account with the invite's role.
 * Refused, with nothing used up: an unknown, used, revoked or expired invite (400, the reason in
 * `metadata.reason`), an invite bound to another address (403), a user already a member (400).
 * The invite is used by one conditional statement in the transaction that adds the membership.
 */
export async function acceptInvite(context: InviteContext, token: string, user: UserRecord, ip: string | null): Promise<{ accountId: string; role: string }> {
  const invite = await findInvite(context, token);
  const now = context.clock.now();
  if (!invite) throw new GatewayError('invalid_request', 'This invite link does not work: ask for a new one', { metadata: { reason: 'unknown' } });
  const status = inviteStatus(invite, now);
  if (status !== 'pending') throw new GatewayError('invalid_request', `This invite has been ${status === 'used' ? 'used already' : status}: ask for a new one`, { metadata: { reason: status } });
  if (emailRefused(invite, user.email)) throw new GatewayError('forbidden', 'This invite is for another email address: sign in with the address it was sent to');
  await context.store.db.transaction().execute(async (trx) => {
    if ((await findMembershipRole(trx, user.id, invite.accountId)) !== undefined) {
      throw new GatewayError('invalid_request', 'You are a member of this account already', { metadata: { reason: 'member' } });
    }
    if (!(await consumeInvite(trx, invite.id, user.id, now.toISOString()))) {
      throw new GatewayError('invalid_request', 'This invite has been used already: ask for a new one', { metadata: { reason: 'used' } });
    }
    await insertMembership(trx, { userId: user.id, accountId: invite.accountId, role: invite.role, createdAt: now.toISOString() });
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: invite.accountId,
      at: now.toISOString(),
      actor: { type: 'user', id: user.id },
      action: 'member.join',
      target: user.id,
      ip,
      details: { role: invite.role, invite_id: invite.id },
    });
  });
  return { accountId: invite.accountId, role: invite.role };
}

/** `GET /auth/invites/{token}`'s `data`: what the page shows before and after sign-in. */
export async function describeInvite(context: Pick<AppContext, 'store' | 'clock'>, token: string): Promise<Record<string, unknown> | undefined> {
  const invite = await findInvite(context, token);
  if (!invite) return undefined;
  const account = await findAccount(context.store.db, invite.accountId);
  return {
    account: { name: account?.name ?? '' },
    role: invite.role,
    email: invite.email,
    status: inviteStatus(invite, context.clock.now()),
    expires_at: invite.expiresAt,
  };
}

/** An invite in `GET /v1/members/invites`. */
export function encodeInvite(invite: InviteRecord): Record<string, unknown> {
  return { id: invite.id, email: invite.email, role: invite.role, created_by: invite.createdBy, created_at: invite.createdAt, expires_at: invite.expiresAt };
}
