import type { Kysely } from 'kysely';

/**
 * The message the client got with a refusal or failure, beside its `error_code`: the code alone
 * cannot tell a used-up key limit from an empty balance (both 402 `insufficient_balance`) or a
 * misspelt model from one without a configured provider (both 503 `no_available_provider`).
 * Nullable (a completed request has none); never filtered on, so no index. Portable DDL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').addColumn('error_message', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('requests').dropColumn('error_message').execute();
}
