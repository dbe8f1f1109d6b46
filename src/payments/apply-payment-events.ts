import { raiseAlert } from '../alerts/raise-alert.js';
import type { AppContext } from '../app-context.js';
import { recordAudit, type AuditActor } from '../audit/record-audit.js';
import { nanoToUsd } from '../core/money.js';
import { postMovement } from '../billing/db/post-movement.js';
import { retryOnConflict } from '../store/retry-conflicts.js';
import { failAutoTopUp, settleAutoTopUp } from './db/auto-top-ups.js';
import { savePaymentMethod } from './db/payment-customers.js';
import type { PaymentEvent } from './payment-provider.js';

/**
 * The actor of a money movement no person started in Switchyard (a refund, a dispute, an auto
 * top-up): the payment provider, acting under the operator's agreement with it.
 */
export const paymentProviderActor: AuditActor = { type: 'admin', id: 'payment_provider' };

export type PaymentDependencies = Pick<AppContext, 'store' | 'clock' | 'createId' | 'logger' | 'ledger' | 'tasks'>;

/**
 * Posts a provider's money events, all in one transaction: the caller answers the provider 2xx
 * only after this returns, so an event is either committed or delivered again. Each movement
 * posts once per reference (`postMovement`), however many deliveries race on however many
 * instances. Each posted movement writes its `money.<kind>` audit entry in the same transaction
 * (a top-up names who started its checkout; the rest `paymentProviderActor`; no address, since
 * the request is the provider's). An event for an account that does not exist (deleted, or
 * another deployment's
 * webhook) is logged and skipped.
 */
export async function applyPaymentEvents(dependencies: PaymentDependencies, provider: string, events: PaymentEvent[]): Promise<void> {
  if (events.length === 0) return;
  const { store, clock, createId, logger } = dependencies;
  const lowered = new Set<string>();
  let failed: Array<{ accountId: string; reason: string; claimId: string | null }> = [];
  await retryOnConflict(() =>
    store.db.transaction().execute(async (trx) => {
      failed = [];
      const now = clock.now().toISOString();
      for (const event of events) {
        const account = await trx.selectFrom('accounts').select('id').where('id', '=', event.accountId).executeTakeFirst();
        if (!account) {
          logger.warn({ provider, type: event.type, accountId: event.accountId }, 'payment event for an unknown account; skipped');
          continue;
        }
        if (event.type === 'auto_top_up_failed') {
          if (await failAutoTopUp(trx, event.accountId, event.claimId, event.message, now)) {
            failed.push({ accountId: event.accountId, reason: event.message, claimId: event.claimId });
          }
          continue;
        }
        const ledgerId = createId('led');
        const posted = await postMovement(trx, {
          id: ledgerId,
          accountId: event.accountId,
          kind: event.type,
          amount: event.amount,
          reference: event.reference,
          note: null,
          receiptUrl: event.type === 'top_up' || event.type === 'auto_top_up' ? event.receiptUrl : null,
          createdAt: now,
        });
        if (event.type === 'top_up' && event.customerId && event.paymentMethodId) {
          await savePaymentMethod(trx, { accountId: event.accountId, provider, customerId: event.customerId, paymentMethodId: event.paymentMethodId, createdAt: now });
        }
        if (event.type === 'auto_top_up' && event.claimId) await settleAutoTopUp(trx, event.accountId, event.claimId);
        if (posted) {
          const actor = (event.type === 'top_up' ? event.actor : null) ?? paymentProviderActor;
          const details = { amount: nanoToUsd(event.amount), reference: event.reference };
          await recordAudit(trx, { id: createId('aud'), accountId: event.accountId, at: now, actor, action: `money.${event.type}`, target: ledgerId, ip: null, details });
        }
        if (posted && event.amount < 0n) lowered.add(event.accountId);
        if (posted) logger.info({ provider, type: event.type, accountId: event.accountId, reference: event.reference }, 'payment posted');
      }
    }),
  );
  // Leases hold slices granted under the old balance: they go back before the provider is
  // answered, so the next request meets the lowered balance (402 when it is below zero).
  for (const accountId of lowered) await dependencies.ledger.reclaimAccount(accountId);
  // Raised after the commit: the failure recorded once (the conditional `failAutoTopUp`) is alerted once.
  for (const failure of failed) await alertAutoTopUpFailure(dependencies, failure);
}

/** The `auto_top_up_failed` alert (contract §8), and the operator's log line; an alert that cannot be raised is logged, not thrown. */
export async function alertAutoTopUpFailure(dependencies: PaymentDependencies, failure: { accountId: string; reason: string; claimId: string | null }): Promise<void> {
  dependencies.logger.warn({ accountId: failure.accountId, reason: failure.reason }, 'auto top-up payment failed; auto top-up turned off');
  await raiseAlert(dependencies, { accountId: failure.accountId, type: 'auto_top_up_failed', data: { reason: failure.reason, claim_id: failure.claimId } }).catch((error: unknown) =>
    dependencies.logger.error({ err: error, accountId: failure.accountId }, 'the auto top-up failure alert could not be raised'),
  );
}
