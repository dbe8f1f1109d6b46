import type { Kysely } from 'kysely';

/**
 * Members (contract §8), portable DDL:
 *
 * - `api_keys.created_by_user_id`: the signed-in user who made the key (null for keys made with a
 *   management key, the admin API or the CLI). A `member` manages only its own keys by it, removing
 *   a member revokes its keys by it (indexed with the account for both), and a member's usage is the
 *   sum over its keys. Member limits (`limit`, `limit_reset`) will be columns of `memberships`,
 *   the row that already names (user, account).
 * - `member_invites`: an invite link's token is 256 random bits of which only the SHA-256 is kept;
 *   `email`, when set, is the only verified address that may accept; `used_at`/`used_by_user_id`
 *   and `revoked_at` end it; indexed by account for the pending list.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by_user_id', 'text').execute();
  await db.schema.createIndex('api_keys_creator_idx').on('api_keys').columns(['account_id', 'created_by_user_id']).execute();

  await db.schema
    .createTable('member_invites')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('email', 'text')
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('created_by', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_by_user_id', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('member_invites_account_idx').on('member_invites').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('member_invites').ifExists().execute();
  await db.schema.dropIndex('api_keys_creator_idx').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by_user_id').execute();
}
