import type { MemberRole } from '../auth/principal.js';

const roles: readonly MemberRole[] = ['owner', 'admin', 'member', 'viewer'];

export function isMemberRole(value: string): value is MemberRole {
  return (roles as readonly string[]).includes(value);
}

/** Owners and admins pass `management` routes (keys, billing); members and viewers do not. */
export function roleManages(role: MemberRole): boolean {
  return role === 'owner' || role === 'admin';
}
