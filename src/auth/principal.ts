import type { PriceCap } from '../store/repositories/api-keys.js';

/** A user's role in an account (contract §7, §8). */
export type MemberRole = 'owner' | 'admin' | 'member' | 'viewer';

/** The signed-in person a session principal acts for, and their role in its account. */
export interface SessionActor {
  sessionId: string;
  userId: string;
  role: MemberRole;
}

/**
 * Who is calling: the authenticated key and its account. Holds only what rarely changes
 * (identity, permissions, price caps); money state is always read from the ledger.
 *
 * A signed-in user on the account endpoints is a principal too (`session` set): its `keyId` is
 * `session:<session id>`, which names no key, so a filter by the caller's key finds nothing of
 * another key's; `management` is true for owners and admins. Paid endpoints never see one: they
 * take keys only.
 */
export interface Principal {
  keyId: string;
  accountId: string;
  management: boolean;
  maxPrice: PriceCap | null;
  modelMaxPrices: Record<string, PriceCap>;
  requestsPerMinute: number | null;
  /** The key caches every request unless it says `x-switchyard-cache: off` (contract §9); absent: only those that say `on`. */
  cache?: boolean;
  session?: SessionActor;
}

/**
 * Whether the caller reads the whole account's usage and requests: a management key, or a
 * signed-in member of any role (a viewer is the role that reads usage and requests, §8); an
 * ordinary key reads its own.
 */
export function readsWholeAccount(principal: Principal): boolean {
  return principal.management || principal.session !== undefined;
}
