import type { AuditSource } from '../audit/audit-source.js';
import { recordAudit } from '../audit/record-audit.js';
import type { StripeConfig } from '../config/types.js';
import { nanoToUsd } from '../core/money.js';
import { invalidRequest } from '../errors/gateway-error.js';
import type { PaymentDependencies } from './apply-payment-events.js';
import { findAutoTopUp, saveAutoTopUp } from './db/auto-top-ups.js';
import { findPaymentCustomer } from './db/payment-customers.js';
import type { PaymentProvider } from './payment-provider.js';
import { checkTopUpAmount } from './start-checkout.js';

/** `GET /v1/credits/auto-top-up`: the settings, whether a card is saved, and the last failure. */
export async function readAutoTopUp(dependencies: PaymentDependencies, provider: PaymentProvider, accountId: string) {
  const { db } = dependencies.store;
  const [settings, customer] = await Promise.all([findAutoTopUp(db, accountId), findPaymentCustomer(db, accountId, provider.name)]);
  return {
    enabled: settings?.enabled ?? false,
    threshold: settings ? nanoToUsd(settings.threshold) : null,
    amount: settings ? nanoToUsd(settings.amount) : null,
    payment_method_saved: Boolean(customer?.paymentMethodId),
    in_flight: settings?.inFlight ?? false,
    last_failure: settings?.lastFailure ? { message: settings.lastFailure, at: settings.lastFailureAt } : null,
  };
}

/**
 * `PUT /v1/credits/auto-top-up`: the amount within the top-up bounds; turning it on needs a card
 * saved by an earlier Checkout (`setup_future_usage: off_session`).
 */
export async function updateAutoTopUp(
  dependencies: PaymentDependencies,
  provider: PaymentProvider,
  settings: StripeConfig,
  accountId: string,
  update: { enabled: boolean; threshold: bigint; amount: bigint },
  source: AuditSource,
): Promise<void> {
  checkTopUpAmount(update.amount, settings);
  const { db } = dependencies.store;
  if (update.enabled && !(await findPaymentCustomer(db, accountId, provider.name))?.paymentMethodId) {
    throw invalidRequest('Auto top-up needs a card saved by an earlier top-up: top up once through Checkout first', 'enabled');
  }
  const at = dependencies.clock.now().toISOString();
  await db.transaction().execute(async (trx) => {
    await saveAutoTopUp(trx, { accountId, ...update, updatedAt: at });
    const details = { enabled: update.enabled, threshold: nanoToUsd(update.threshold), amount: nanoToUsd(update.amount) };
    await recordAudit(trx, { id: dependencies.createId('aud'), accountId, at, actor: source.actor, action: 'money.auto_top_up_settings', target: null, ip: source.ip, details });
  });
}
