import type { Kysely } from 'kysely';

/**
 * The initial schema. Portable DDL only: text, integer, bigint; booleans as 0/1, timestamps
 * as ISO 8601 text, money as bigint nano-USD.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('total_credits', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('total_usage', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('reserved', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('label', 'text', (column) => column.notNull())
    .addColumn('hash', 'text', (column) => column.notNull().unique())
    .addColumn('management', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('spend_limit', 'bigint')
    .addColumn('usage', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('reserved', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('max_price_prompt', 'bigint')
    .addColumn('max_price_completion', 'bigint')
    .addColumn('model_max_prices', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('requests_per_minute', 'integer')
    .execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('key_id', 'text')
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('request_id', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('ledger_entries_account_idx').on('ledger_entries').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('reservations')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('key_id', 'text')
    .addColumn('request_id', 'text', (column) => column.notNull())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('reservations_expires_idx').on('reservations').column('expires_at').execute();

  await db.schema
    .createTable('requests')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text')
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('provider', 'text')
    .addColumn('endpoint', 'text', (column) => column.notNull())
    .addColumn('streamed', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('error_code', 'text')
    .addColumn('latency_ms', 'integer')
    .addColumn('prompt_tokens', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('cached_tokens', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('reasoning_tokens', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('estimated', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  // Ids are time-ordered, so (account, id) serves "latest first" pagination; the key variant
  // serves ordinary keys, which see only their own requests.
  await db.schema.createIndex('requests_account_idx').on('requests').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('requests_account_key_idx').on('requests').columns(['account_id', 'key_id', 'id']).execute();

  await db.schema
    .createTable('usage_rollups')
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('requests', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_rollups_pk', ['account_id', 'day', 'key_id', 'model', 'provider'])
    .execute();

  await db.schema
    .createTable('default_providers')
    .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id'))
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('default_providers_pk', ['account_id', 'model'])
    .execute();

  await db.schema
    .createTable('messenger_links')
    .addColumn('account_id', 'text', (column) => column.primaryKey().references('accounts.id'))
    .addColumn('messenger', 'text', (column) => column.notNull())
    .addColumn('external_id', 'text')
    .addColumn('linked_at', 'text', (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('key_id', 'text')
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('model', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('progress', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('input', 'text', (column) => column.notNull())
    .addColumn('provider_job_id', 'text')
    .addColumn('reservation_id', 'text')
    .addColumn('reserved', 'bigint', (column) => column.notNull().defaultTo(0))
    .addColumn('cost', 'bigint')
    .addColumn('error', 'text')
    .addColumn('result', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_poll_at', 'text', (column) => column.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('row_version', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('tasks_due_idx').on('tasks').columns(['status', 'next_poll_at']).execute();
  await db.schema.createIndex('tasks_account_idx').on('tasks').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('tasks_idempotency_idx').on('tasks').columns(['account_id', 'idempotency_key']).unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tasks', 'messenger_links', 'default_providers', 'usage_rollups', 'requests', 'reservations', 'ledger_entries', 'api_keys', 'accounts']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
