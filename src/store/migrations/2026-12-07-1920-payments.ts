import type { Kysely } from 'kysely';

/**
 * Payments (contract §7, docs/payments.md). `payment_customers` maps an account to its customer at
 * the payment provider (a Stripe Customer, made once per account so that a card saved by a
 * Checkout can be charged later) and the saved payment method; the customer id is unique, so an
 * event naming a customer finds its account.
 *
 * `auto_top_ups` holds each account's auto top-up and its state. At most one payment is in flight
 * per account across instances because an instance claims it with a conditional UPDATE (`in_flight_id`
 * from null to its claim id, only while `armed`), never a check-then-write; the claim id is the
 * payment's idempotency key, so a retried create cannot make a second payment. `armed` goes to 0
 * with the claim and back to 1 once the balance is seen at or above the threshold again: one
 * payment per crossing.
 *
 * `ledger_references_entry_idx` lets the transactions list find each movement's reference; the
 * table is new (one row per outside movement), so building the index now is instant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payment_customers')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.notNull())
    .addColumn('provider', 'text', (column) => column.notNull())
    .addColumn('customer_id', 'text', (column) => column.notNull())
    .addColumn('payment_method_id', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('payment_customers_pk', ['account_id', 'provider'])
    .addUniqueConstraint('payment_customers_customer_unique', ['provider', 'customer_id'])
    .execute();
  await db.schema
    .createTable('auto_top_ups')
    .ifNotExists()
    .addColumn('account_id', 'text', (column) => column.primaryKey())
    .addColumn('enabled', 'integer', (column) => column.notNull())
    .addColumn('threshold', 'bigint', (column) => column.notNull())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('armed', 'integer', (column) => column.notNull())
    .addColumn('in_flight_id', 'text')
    .addColumn('in_flight_since', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('last_failure', 'text')
    .addColumn('last_failure_at', 'text')
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  // The transactions list names each movement's reference by its ledger entry.
  await db.schema.createIndex('ledger_references_entry_idx').ifNotExists().on('ledger_references').column('ledger_entry_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ledger_references_entry_idx').ifExists().execute();
  await db.schema.dropTable('auto_top_ups').ifExists().execute();
  await db.schema.dropTable('payment_customers').ifExists().execute();
}
