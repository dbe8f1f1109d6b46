import type { Kysely } from 'kysely';

/**
 * People who sign in to the page (contract §7): users, their memberships of accounts, their
 * sessions, and the short-lived records of the sign-in methods.
 *
 * - `users`: a person; `email` (lower case) and `telegram_id` each identify at most one user
 *   (unique indexes; NULLs never collide, on either dialect).
 * - `user_identities`: per-method subjects that are not a column of `users` — an OpenID Connect
 *   provider's `(issuer, sub)`, the stable name of a person there (an email can change hands).
 * - `memberships`: (user, account, role); the primary key serves a user's accounts, the index by
 *   account an account's members.
 * - `sessions`: only the SHA-256 of the cookie's token is stored; `last_used_at` bounds the
 *   30 days since last use; indexed by user for the sessions list, and by `last_used_at` for the
 *   clean-up of sessions unused for 30 days that each sign-in runs.
 * - `email_sign_in_tokens`: a magic link's token hash, single use; indexed by (email,
 *   created_at) for the 5-per-hour cap, which counts the links of the last hour, and by
 *   `created_at` for the sweep of links more than an hour old that each request runs.
 * - `email_sign_in_senders`: one row per address, updated before the count, so that concurrent
 *   requests for one address queue on it (a row lock on PostgreSQL, the write lock on SQLite)
 *   and the cap holds under concurrency; swept like the links, by `last_requested_at`.
 * - `oidc_states`: an authorization request in flight, deleted when its callback uses it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('telegram_id', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('users_email_idx').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_telegram_idx').on('users').column('telegram_id').unique().execute();

  await db.schema
    .createTable('user_identities')
    .addColumn('method', 'text', (column) => column.notNull())
    .addColumn('issuer', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['method', 'issuer', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user_idx').on('user_identities').column('user_id').execute();

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id'))
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'account_id'])
    .execute();
  await db.schema.createIndex('memberships_account_idx').on('memberships').columns(['account_id', 'user_id']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('user_id', 'text', (column) => column.notNull().references('users.id'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text', (column) => column.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('ip', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').columns(['user_id', 'last_used_at']).execute();
  await db.schema.createIndex('sessions_last_used_idx').on('sessions').column('last_used_at').execute();

  await db.schema
    .createTable('email_sign_in_tokens')
    .addColumn('token_hash', 'text', (column) => column.primaryKey())
    .addColumn('email', 'text', (column) => column.notNull())
    .addColumn('return_to', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('used', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('email_sign_in_tokens_email_idx').on('email_sign_in_tokens').columns(['email', 'created_at']).execute();
  await db.schema.createIndex('email_sign_in_tokens_created_idx').on('email_sign_in_tokens').column('created_at').execute();

  await db.schema
    .createTable('email_sign_in_senders')
    .addColumn('email', 'text', (column) => column.primaryKey())
    .addColumn('last_requested_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('email_sign_in_senders_requested_idx').on('email_sign_in_senders').column('last_requested_at').execute();

  await db.schema
    .createTable('oidc_states')
    .addColumn('state_hash', 'text', (column) => column.primaryKey())
    .addColumn('provider_id', 'text', (column) => column.notNull())
    .addColumn('nonce', 'text', (column) => column.notNull())
    .addColumn('code_verifier', 'text', (column) => column.notNull())
    .addColumn('return_to', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('oidc_states_expires_idx').on('oidc_states').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oidc_states', 'email_sign_in_senders', 'email_sign_in_tokens', 'sessions', 'memberships', 'user_identities', 'users']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
