import type { Kysely } from 'kysely';

/**
 * Alerts (contract §8). `alert_settings` holds one row per account that configured them: the
 * low-balance threshold (nano-USD, null when off), the key-limit percents (a JSON array), the
 * channels, and the webhook's URL and signing secret.
 *
 * `alert_states` is what makes an alert fire once per crossing on any number of instances: a
 * row per (account, type, subject, level, period) that has fired. The sweep claims a crossing by
 * inserting its row (`ON CONFLICT DO NOTHING`, so one instance wins) and re-arms it by deleting
 * the row once the condition no longer holds (the balance back above the threshold, a key's
 * usage back under the percent). `subject` is a key id for key limits ('' for the account);
 * `period` names the limit's period ('' for a lifetime limit), so a limit that resets fires
 * again in its next period. Portable DDL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_settings')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.primaryKey())
    .addColumn('low_balance_threshold', 'bigint')
    .addColumn('key_limit_percents', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('email', 'integer', (column) => column.notNull())
    .addColumn('telegram', 'integer', (column) => column.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('alert_states')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('level', 'integer', (column) => column.notNull())
    .addColumn('period', 'text', (column) => column.notNull())
    .addColumn('alert_id', 'text', (column) => column.notNull())
    .addColumn('fired_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('alert_states_pk', ['account_id', 'type', 'subject', 'level', 'period'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_states').ifExists().execute();
  await db.schema.dropTable('alert_settings').ifExists().execute();
}
