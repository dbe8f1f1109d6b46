import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

/** The account's default provider for each model it set one for. */
export async function listDefaultProviders(db: Kysely<Database>, accountId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('default_providers').select(['model', 'provider']).where('account_id', '=', accountId).execute();
  return new Map(rows.map((row) => [row.model, row.provider]));
}

export async function findDefaultProvider(db: Kysely<Database>, accountId: string, model: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('default_providers')
    .select('provider')
    .where('account_id', '=', accountId)
    .where('model', '=', model)
    .executeTakeFirst();
  return row?.provider;
}

export async function upsertDefaultProvider(
  db: Kysely<Database>,
  entry: { accountId: string; model: string; provider: string; updatedAt: string },
): Promise<void> {
  await db
    .insertInto('default_providers')
    .values({ account_id: entry.accountId, model: entry.model, provider: entry.provider, updated_at: entry.updatedAt })
    .onConflict((conflict) => conflict.columns(['account_id', 'model']).doUpdateSet({ provider: entry.provider, updated_at: entry.updatedAt }))
    .execute();
}

export async function deleteDefaultProvider(db: Kysely<Database>, accountId: string, model: string): Promise<void> {
  await db.deleteFrom('default_providers').where('account_id', '=', accountId).where('model', '=', model).execute();
}
