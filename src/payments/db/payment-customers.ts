import type { Kysely } from 'kysely';
import type { Database } from '../../store/database.js';

export interface PaymentCustomer {
  customerId: string;
  paymentMethodId: string | null;
}

export async function findPaymentCustomer(db: Kysely<Database>, accountId: string, provider: string): Promise<PaymentCustomer | undefined> {
  const row = await db.selectFrom('payment_customers').select(['customer_id', 'payment_method_id']).where('account_id', '=', accountId).where('provider', '=', provider).executeTakeFirst();
  return row ? { customerId: row.customer_id, paymentMethodId: row.payment_method_id } : undefined;
}

/** Keeps the first customer recorded for an account; a later one (a race) is dropped. */
export async function insertPaymentCustomer(db: Kysely<Database>, row: { accountId: string; provider: string; customerId: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('payment_customers')
    .values({ account_id: row.accountId, provider: row.provider, customer_id: row.customerId, payment_method_id: null, created_at: row.createdAt })
    .onConflict((conflict) => conflict.columns(['account_id', 'provider']).doNothing())
    .execute();
}

/** The payment method a completed checkout saved, for auto top-up to charge. */
export async function savePaymentMethod(db: Kysely<Database>, row: { accountId: string; provider: string; customerId: string; paymentMethodId: string; createdAt: string }): Promise<void> {
  await db
    .insertInto('payment_customers')
    .values({ account_id: row.accountId, provider: row.provider, customer_id: row.customerId, payment_method_id: row.paymentMethodId, created_at: row.createdAt })
    .onConflict((conflict) => conflict.columns(['account_id', 'provider']).doUpdateSet({ payment_method_id: row.paymentMethodId }))
    .execute();
}
