import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export interface LinkCodeRecord {
  accountId: string;
  expiresAt: string;
}

/** Stores the account's code, replacing any earlier one (which stops working at once). */
export async function upsertLinkCode(
  db: Kysely<Database>,
  code: { accountId: string; codeHash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('link_codes')
    .values({ account_id: code.accountId, code_hash: code.codeHash, created_at: code.createdAt, expires_at: code.expiresAt })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ code_hash: code.codeHash, created_at: code.createdAt, expires_at: code.expiresAt }))
    .execute();
}

export async function findLinkCode(db: Kysely<Database>, codeHash: string): Promise<LinkCodeRecord | undefined> {
  const row = await db.selectFrom('link_codes').select(['account_id', 'expires_at']).where('code_hash', '=', codeHash).executeTakeFirst();
  return row && { accountId: row.account_id, expiresAt: row.expires_at };
}

/** Deletes the code; true only for the one caller that actually removed it (the redemption). */
export async function deleteLinkCode(db: Kysely<Database>, codeHash: string): Promise<boolean> {
  const result = await db.deleteFrom('link_codes').where('code_hash', '=', codeHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
