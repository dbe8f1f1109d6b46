import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface OidcStateRecord {
  providerId: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

export async function insertOidcState(db: Kysely<Database>, state: OidcStateRecord & { stateHash: string; expiresAt: string }): Promise<void> {
  await db
    .insertInto('oidc_states')
    .values({ state_hash: state.stateHash, provider_id: state.providerId, nonce: state.nonce, code_verifier: state.codeVerifier, return_to: state.returnTo, expires_at: state.expiresAt })
    .execute();
}

/**
 * Takes a pending state once: the delete answers it to one caller only, so a replayed callback
 * finds nothing. Undefined for an unknown, used or expired state.
 */
export async function takeOidcState(db: Kysely<Database>, stateHash: string, now: string): Promise<OidcStateRecord | undefined> {
  const row = await db
    .deleteFrom('oidc_states')
    .where('state_hash', '=', stateHash)
    .returning(['provider_id', 'nonce', 'code_verifier', 'return_to', 'expires_at'])
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return undefined;
  return { providerId: row.provider_id, nonce: row.nonce, codeVerifier: row.code_verifier, returnTo: row.return_to };
}

/** Deletes states whose sign-in was abandoned. */
export async function deleteExpiredOidcStates(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('oidc_states').where('expires_at', '<=', now).execute();
}
