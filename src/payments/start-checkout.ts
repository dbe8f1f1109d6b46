import type { AuditActor } from '../audit/record-audit.js';
import type { StripeConfig } from '../config/types.js';
import { formatScaled } from '../core/money.js';
import { invalidRequest } from '../errors/gateway-error.js';
import type { PaymentDependencies } from './apply-payment-events.js';
import { computeFee, nanoPerCent } from './compute-fee.js';
import { findPaymentCustomer, insertPaymentCustomer } from './db/payment-customers.js';
import type { CheckoutSession, PaymentProvider } from './payment-provider.js';

/** What the page is told when the customer comes back; `{CHECKOUT_SESSION_ID}` is filled in by Stripe. */
export function checkoutReturnUrls(publicUrl: string): { successUrl: string; cancelUrl: string } {
  return { successUrl: `${publicUrl}/?topup=success&session_id={CHECKOUT_SESSION_ID}`, cancelUrl: `${publicUrl}/?topup=cancelled` };
}

/** The top-up bounds of the contract (`min`…`max`, whole cents), or a 400 naming them. */
export function checkTopUpAmount(amount: bigint, settings: Pick<StripeConfig, 'min' | 'max'>, param = 'amount'): void {
  if (amount < settings.min || amount > settings.max) {
    throw invalidRequest(`'${param}' must be between ${formatScaled(settings.min, 9)} and ${formatScaled(settings.max, 9)} USD`, param);
  }
  if (amount % nanoPerCent !== 0n) throw invalidRequest(`'${param}' must be whole cents`, param);
}

/**
 * Opens a hosted checkout for a top-up of `amount` credits: the account's customer first (made
 * once, so the card saved by this payment can pay auto top-ups later), the fee on top. The actor
 * travels with the checkout, for the audit entry of the top-up its webhook posts.
 */
export async function startCheckout(
  dependencies: PaymentDependencies,
  provider: PaymentProvider,
  settings: StripeConfig,
  publicUrl: string,
  accountId: string,
  amount: bigint,
  actor: AuditActor,
): Promise<CheckoutSession> {
  checkTopUpAmount(amount, settings);
  const customerId = await ensureCustomer(dependencies, provider, accountId);
  return provider.createCheckout({ accountId, customerId, credits: amount, fee: computeFee(amount, settings), actor, ...checkoutReturnUrls(publicUrl) });
}

async function ensureCustomer(dependencies: PaymentDependencies, provider: PaymentProvider, accountId: string): Promise<string> {
  const { db } = dependencies.store;
  const known = await findPaymentCustomer(db, accountId, provider.name);
  if (known) return known.customerId;
  const customerId = await provider.createCustomer(accountId);
  await insertPaymentCustomer(db, { accountId, provider: provider.name, customerId, createdAt: dependencies.clock.now().toISOString() });
  // Two first checkouts at once: the first row wins, and both use it.
  return (await findPaymentCustomer(db, accountId, provider.name))!.customerId;
}
