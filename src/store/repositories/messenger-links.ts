import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

export async function upsertMessengerLink(
  db: Kysely<Database>,
  link: { accountId: string; messenger: string; externalId: string | null; linkedAt: string },
): Promise<void> {
  await db
    .insertInto('messenger_links')
    .values({ account_id: link.accountId, messenger: link.messenger, external_id: link.externalId, linked_at: link.linkedAt })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet({ messenger: link.messenger, external_id: link.externalId, linked_at: link.linkedAt }))
    .execute();
}

export async function deleteMessengerLink(db: Kysely<Database>, accountId: string): Promise<void> {
  await db.deleteFrom('messenger_links').where('account_id', '=', accountId).execute();
}
