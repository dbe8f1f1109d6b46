import type { Principal } from '../../auth/principal.js';

/**
 * Whose keys the caller manages: a `member` session only the keys its user made (contract §8),
 * answered as that user id; everyone else every key of the account (undefined).
 */
export function keyCreatorFilter(principal: Principal): string | undefined {
  return principal.session?.role === 'member' ? principal.session.userId : undefined;
}
