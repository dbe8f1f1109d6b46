import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

/** The email addresses of the account's owners and admins (a user's address is verified: contract §7). */
export async function findAlertEmails(db: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.email')
    .where('m.account_id', '=', accountId)
    .where('m.role', 'in', ['owner', 'admin'])
    .where('u.email', 'is not', null)
    .orderBy('u.email')
    .execute();
  return [...new Set(rows.map((row) => row.email!))];
}

/** The Telegram chat linked to the account (messenger link), or null. */
export async function findTelegramChat(db: Kysely<Database>, accountId: string): Promise<number | null> {
  const row = await db.selectFrom('messenger_links').select('external_id').where('account_id', '=', accountId).where('messenger', '=', 'telegram').executeTakeFirst();
  const chatId = row?.external_id ? Number(row.external_id) : NaN;
  return Number.isSafeInteger(chatId) ? chatId : null;
}
