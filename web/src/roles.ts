/** A user's role in an account (contract §7, §8). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** Billing (top-up, auto top-up, codes) is for owners and admins (§7); members and viewers never see it. */
export function seesBilling(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}
