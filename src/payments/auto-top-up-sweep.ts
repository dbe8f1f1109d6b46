import type { StripeConfig } from '../config/types.js';
import { alertAutoTopUpFailure, applyPaymentEvents, type PaymentDependencies } from './apply-payment-events.js';
import { computeFee } from './compute-fee.js';
import { claimAutoTopUp, failAutoTopUp, findDueAutoTopUps, reclaimStaleAutoTopUp, rearmAutoTopUps, recordAutoTopUpPayment, type AutoTopUpDue } from './db/auto-top-ups.js';
import { findPaymentCustomer } from './db/payment-customers.js';
import type { PaymentProvider } from './payment-provider.js';
import { PeriodicRound } from '../store/periodic-round.js';

/** A claim whose payment was not created within this time is tried again, with the same idempotency key. */
const staleClaimMs = 60_000;

/**
 * Auto top-up (contract §7): every `autoTopUpCheckMs` each instance looks for accounts whose
 * balance is below their threshold and pays one off-session payment per crossing.
 *
 * A sweep rather than a check after each charge: the request path stays as it is (no query, no
 * branch in the books writer, nothing to measure with `npm run bench`), and the sweep reads only
 * the auto-top-up table (one row per account that turned it on) joined to those accounts by
 * primary key. The price is a delay of up to one interval between the crossing and the payment,
 * which the threshold is there to absorb. Instances agree through the database alone: a claim is
 * a conditional UPDATE that one of them wins (`claimAutoTopUp`), and its id is the payment's
 * idempotency key.
 */
export class AutoTopUpSweep {
  private readonly rounds: PeriodicRound;

  constructor(
    private readonly dependencies: PaymentDependencies,
    private readonly provider: PaymentProvider,
    private readonly settings: StripeConfig,
  ) {
    this.rounds = new PeriodicRound({ name: 'auto top-up sweep', intervalMs: settings.autoTopUpCheckMs, first: 'spread', logger: dependencies.logger }, () => this.runOnce());
  }

  start(): void {
    this.rounds.start();
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }

  async runOnce(): Promise<void> {
    const { db } = this.dependencies.store;
    const now = this.dependencies.clock.now();
    await rearmAutoTopUps(db);
    const due = await findDueAutoTopUps(db, new Date(now.getTime() - staleClaimMs).toISOString());
    for (const entry of due) {
      if (this.rounds.stopped) return;
      await this.pay(entry, now.toISOString()).catch((error: unknown) =>
        this.dependencies.logger.warn({ err: error, accountId: entry.accountId }, 'auto top-up payment could not be created; the claim is tried again later'),
      );
    }
  }

  private async pay(entry: AutoTopUpDue, now: string): Promise<void> {
    const { db } = this.dependencies.store;
    let claimId: string;
    if (entry.staleClaimId !== null) {
      if (!(await reclaimStaleAutoTopUp(db, entry.accountId, entry.staleClaimId, entry.staleSince!, now))) return;
      claimId = entry.staleClaimId;
    } else {
      claimId = this.dependencies.createId('atu');
      if (!(await claimAutoTopUp(db, entry.accountId, claimId, now))) return;
    }
    const customer = await findPaymentCustomer(db, entry.accountId, this.provider.name);
    if (!customer?.paymentMethodId) {
      await this.fail(entry.accountId, claimId, 'no saved payment method', now);
      return;
    }
    const outcome = await this.provider.chargeSavedMethod({
      accountId: entry.accountId,
      customerId: customer.customerId,
      paymentMethodId: customer.paymentMethodId,
      credits: entry.amount,
      fee: computeFee(entry.amount, this.settings),
      claimId,
    });
    if (outcome.status === 'declined') return this.fail(entry.accountId, claimId, outcome.message, now);
    await recordAutoTopUpPayment(db, entry.accountId, claimId, outcome.paymentId);
    // Paid at once (a card usually is): credited now; `payment_intent.succeeded` then finds it posted.
    if (outcome.status === 'succeeded') await applyPaymentEvents(this.dependencies, this.provider.name, [outcome.event]);
  }

  private async fail(accountId: string, claimId: string, message: string, now: string): Promise<void> {
    if (await failAutoTopUp(this.dependencies.store.db, accountId, claimId, message, now)) await alertAutoTopUpFailure(this.dependencies, { accountId, reason: message, claimId });
  }
}
