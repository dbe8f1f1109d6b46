import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import { toNumber } from '../convert.js';

/**
 * Writes the address's row in `email_sign_in_senders` first thing in the caller's transaction, so
 * that concurrent requests for one address queue here (PostgreSQL's row lock, SQLite's write
 * lock) and each counts the links the ones before it made.
 */
export async function lockEmailSender(db: Kysely<Database>, email: string, at: string): Promise<void> {
  await db
    .insertInto('email_sign_in_senders')
    .values({ email, last_requested_at: at })
    .onConflict((conflict) => conflict.column('email').doUpdateSet({ last_requested_at: at }))
    .execute();
}

/** Links mailed to the address since `since`. */
export async function countEmailTokensSince(db: Kysely<Database>, email: string, since: string): Promise<number> {
  const row = await db.selectFrom('email_sign_in_tokens').select((eb) => eb.fn.countAll().as('count')).where('email', '=', email).where('created_at', '>=', since).executeTakeFirstOrThrow();
  return toNumber(row.count as number | bigint);
}

/**
 * Forgets links made before `before` and addresses not heard from since, at most `limit` of each:
 * past the hour they count toward no cap and sign no one in.
 */
export async function sweepEmailSignIns(db: Kysely<Database>, before: string, limit: number): Promise<void> {
  const oldTokens = db.selectFrom('email_sign_in_tokens').select('token_hash').where('created_at', '<', before).orderBy('created_at').limit(limit);
  await db.deleteFrom('email_sign_in_tokens').where('token_hash', 'in', oldTokens).execute();
  const quietSenders = db.selectFrom('email_sign_in_senders').select('email').where('last_requested_at', '<', before).orderBy('last_requested_at').limit(limit);
  await db.deleteFrom('email_sign_in_senders').where('email', 'in', quietSenders).execute();
}

export async function insertEmailToken(
  db: Kysely<Database>,
  token: { tokenHash: string; email: string; returnTo: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('email_sign_in_tokens')
    .values({ token_hash: token.tokenHash, email: token.email, return_to: token.returnTo, created_at: token.createdAt, expires_at: token.expiresAt, used: 0 })
    .execute();
}

/**
 * Uses a link once: one conditional update marks it used, so of two concurrent uses only one
 * gets the address back. Undefined for an unknown, used or expired link.
 */
export async function consumeEmailToken(db: Kysely<Database>, tokenHash: string, now: string): Promise<{ email: string; returnTo: string } | undefined> {
  const row = await db
    .updateTable('email_sign_in_tokens')
    .set({ used: 1 })
    .where('token_hash', '=', tokenHash)
    .where('used', '=', 0)
    .where('expires_at', '>', now)
    .returning(['email', 'return_to'])
    .executeTakeFirst();
  return row && { email: row.email, returnTo: row.return_to };
}
