import type { AppContext } from '../app-context.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { MemberRole, Principal } from '../auth/principal.js';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error.js';
import { setMemberLimit } from '../billing/db/member-periods.js';
import { periodStart, type LimitReset } from '../billing/limit-periods.js';
import { revokeKeysCreatedBy } from '../store/repositories/api-keys.js';
import { deleteMembership, findMembershipRole, lockOwners, setMembershipRole } from '../store/repositories/memberships.js';

type ManageContext = Pick<AppContext, 'store' | 'clock' | 'createId'>;

/**
 * What the caller's role allows over a member whose role is `current` (contract §8): an owner, or
 * a management key (the owner's credential), anything; an admin anyone but an owner, and never
 * makes one. `target` is the role asked for, when changing.
 */
function requireAuthority(principal: Principal, current: string, target?: MemberRole): void {
  const role = principal.session?.role;
  if (role === undefined || role === 'owner') return;
  if (role !== 'admin') throw new GatewayError('forbidden', `Changing members needs the owner or admin role; yours is ${role}`);
  if (current === 'owner') throw new GatewayError('forbidden', 'An admin does not change or remove an owner');
  if (target === 'owner') throw new GatewayError('forbidden', 'Only an owner makes an owner');
}

/** Every account keeps at least one owner (contract §7): refused when `userId` is its last. */
function requireAnotherOwner(owners: string[], userId: string): void {
  if (owners.includes(userId) && owners.length <= 1) {
    throw invalidRequest('An account keeps at least one owner: make another member an owner first');
  }
}

/**
 * `PATCH /v1/members/{user_id} {role}`. In one transaction: the owners are locked (see
 * `lockOwners`), the member's role read, the caller's authority and the last-owner rule checked,
 * the role written and the audit entry added. A session of the member acts with its new role on
 * its next request, on every instance (the role is read per request).
 */
export async function changeMemberRole(context: ManageContext, principal: Principal, userId: string, role: MemberRole, ip: string | null): Promise<void> {
  const { db, dialect } = context.store;
  await db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, dialect, principal.accountId);
    const current = await findMembershipRole(trx, userId, principal.accountId);
    if (current === undefined) throw notFound(`Member '${userId}'`);
    requireAuthority(principal, current, role);
    if (current === role) return;
    if (role !== 'owner') requireAnotherOwner(owners, userId);
    await setMembershipRole(trx, userId, principal.accountId, role);
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: principal.accountId,
      at: context.clock.now().toISOString(),
      actor: actorOf(principal),
      action: 'member.role',
      target: userId,
      ip,
      details: { from: current, to: role },
    });
  });
}

/**
 * `PATCH /v1/members/{user_id} {limit?, limit_reset?}` (issue 49): the member's own limit, which its
 * keys' spending counts toward (nano-USD; null clears it) and its reset. Who may: as for a role
 * change (an admin not an owner's). In one transaction with its `member.limit` audit entry.
 * Reservations and leases its keys hold stay counted in the member's `reserved` whatever the
 * limit becomes (the trigger of migration 2026-12-07-2020 keeps it), so clearing or lowering
 * it, or removing the member, releases exactly what was held.
 */
export async function changeMemberLimit(
  context: ManageContext,
  principal: Principal,
  userId: string,
  change: { limit?: bigint | null; reset?: LimitReset | null; details: Record<string, unknown> },
  ip: string | null,
): Promise<void> {
  const { db, dialect } = context.store;
  await db.transaction().execute(async (trx) => {
    const current = await findMembershipRole(trx, userId, principal.accountId);
    if (current === undefined) throw notFound(`Member '${userId}'`);
    requireAuthority(principal, current);
    const now = context.clock.now();
    const start = change.reset === undefined || change.reset === null ? null : periodStart(change.reset, now).toISOString();
    const set = { accountId: principal.accountId, userId, limit: change.limit, reset: change.reset, periodStart: start, postgres: dialect === 'postgres' };
    if (!(await setMemberLimit(trx, set))) throw notFound(`Member '${userId}'`);
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: principal.accountId,
      at: now.toISOString(),
      actor: actorOf(principal),
      action: 'member.limit',
      target: userId,
      ip,
      details: change.details,
    });
  });
}

/**
 * `DELETE /v1/members/{user_id}`: an owner or admin removes a member (an admin no owner), and
 * anyone may leave (remove itself); never the last owner. In the same transaction the keys the
 * member made in the account are revoked. Answers their ids: the caller drops them from its
 * caches; other instances hear of each revocation from the database (`billing/lease-signals.ts`).
 * The member's sessions stop acting on the account at once, since the membership is read per request.
 */
export async function removeMember(context: ManageContext, principal: Principal, userId: string, ip: string | null): Promise<string[]> {
  const { db, dialect } = context.store;
  const leaving = principal.session?.userId === userId;
  return db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, dialect, principal.accountId);
    const current = await findMembershipRole(trx, userId, principal.accountId);
    if (current === undefined) throw notFound(`Member '${userId}'`);
    if (!leaving) requireAuthority(principal, current);
    requireAnotherOwner(owners, userId);
    const now = context.clock.now().toISOString();
    await deleteMembership(trx, userId, principal.accountId);
    const revoked = await revokeKeysCreatedBy(trx, principal.accountId, userId, now);
    await recordAudit(trx, {
      id: context.createId('aud'),
      accountId: principal.accountId,
      at: now,
      actor: actorOf(principal),
      action: 'member.remove',
      target: userId,
      ip,
      details: { role: current, left: leaving, revoked_keys: revoked },
    });
    return revoked;
  });
}
