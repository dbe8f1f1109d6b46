/** A user's role in an account (contract §7, §8). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** Billing (top-up, codes, transactions) is for owners and admins (§7); members and viewers never see it. */
export function seesBilling(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * Auto top-up charges the owner's saved card off-session: only an owner sets it (docs/sign-in.md
 * roles table; `PUT /v1/credits/auto-top-up` is owner-only in src/people/role-policy.ts). An
 * admin sees its state, read-only.
 */
export function setsAutoTopUp(role: Role): boolean {
  return role === 'owner';
}

/** Members' own keys (§8): owners and admins manage every key, a member only those it made; a viewer none. */
export function managesKeys(role: Role): boolean {
  return role !== 'viewer';
}

/** Invites, role changes and removals, alerts and the audit log: owners and admins (an admin never touches an owner). */
export function managesMembers(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

export const roleNames: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };
