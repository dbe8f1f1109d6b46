import type Stripe from 'stripe';
import type { AuditActor } from '../../audit/record-audit.js';
import type { PaymentEvent } from '../payment-provider.js';

/** The API reads an event may need to name its account, its amounts and its receipt. */
export interface StripeLookups {
  paymentIntent(id: string): Promise<Stripe.PaymentIntent>;
  charge(id: string): Promise<Stripe.Charge>;
  refundsOf(chargeId: string): Promise<Stripe.Refund[]>;
}

/** What we wrote into a payment's metadata when we made it (`stripe-provider.ts`). */
interface OurPayment {
  accountId: string;
  credits: bigint;
  kind: 'top_up' | 'auto_top_up';
}

function ourPayment(metadata: Stripe.Metadata | null | undefined): OurPayment | undefined {
  const kind = metadata?.switchyard_kind;
  const accountId = metadata?.account_id;
  const credits = metadata?.credits_nano;
  if ((kind !== 'top_up' && kind !== 'auto_top_up') || !accountId || !credits || !/^\d+$/.test(credits)) return undefined;
  return { accountId, credits: BigInt(credits), kind };
}

/** Who started a checkout, as `start-checkout.ts` wrote it; null for a checkout made before it did. */
function actorOfCheckout(metadata: Stripe.Metadata | null | undefined): AuditActor | null {
  const type = metadata?.actor_type;
  const id = metadata?.actor_id;
  if ((type !== 'user' && type !== 'key' && type !== 'admin') || !id) return null;
  return { type, id };
}

export const checkoutReference = (sessionId: string): string => `stripe:checkout:${sessionId}`;

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

/**
 * Reads a verified Stripe event into money events. Each names its reference by Stripe's own id
 * (the Checkout Session, the PaymentIntent, the Refund, the Dispute), so a delivery repeated or
 * out of order posts each movement once. Money back (refund, dispute) is the credited share of
 * what was paid: a fee paid on top was never credited, so it is not debited either.
 * Event types: https://docs.stripe.com/api/events/types
 */
export async function readStripeEvent(event: Stripe.Event, lookups: StripeLookups): Promise<PaymentEvent[]> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      const payment = ourPayment(session.metadata);
      // `completed` with `unpaid` is a delayed method (a bank debit): its money arrives with
      // `async_payment_succeeded`. https://docs.stripe.com/checkout/fulfillment
      if (!payment || payment.kind !== 'top_up' || session.mode !== 'payment' || session.payment_status !== 'paid') return [];
      const accountId = session.client_reference_id ?? payment.accountId;
      const intentId = idOf(session.payment_intent);
      const intent = intentId ? await lookups.paymentIntent(intentId) : null;
      const chargeId = idOf(intent?.latest_charge);
      const charge = chargeId ? await lookups.charge(chargeId) : null;
      return [
        {
          type: 'top_up',
          reference: checkoutReference(session.id),
          accountId,
          amount: payment.credits,
          receiptUrl: charge?.receipt_url ?? null,
          customerId: idOf(session.customer),
          paymentMethodId: idOf(intent?.payment_method),
          actor: actorOfCheckout(session.metadata),
        },
      ];
    }
    case 'payment_intent.succeeded': {
      const intent = event.data.object;
      const payment = ourPayment(intent.metadata);
      if (!payment || payment.kind !== 'auto_top_up') return [];
      const chargeId = idOf(intent.latest_charge);
      const charge = chargeId ? await lookups.charge(chargeId) : null;
      return [{ type: 'auto_top_up', reference: `stripe:payment_intent:${intent.id}`, accountId: payment.accountId, amount: payment.credits, receiptUrl: charge?.receipt_url ?? null, claimId: intent.metadata.auto_top_up_claim ?? null }];
    }
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      const payment = ourPayment(intent.metadata);
      if (!payment || payment.kind !== 'auto_top_up') return [];
      return [{ type: 'auto_top_up_failed', accountId: payment.accountId, claimId: intent.metadata.auto_top_up_claim ?? null, message: intent.last_payment_error?.message ?? 'the payment failed' }];
    }
    case 'charge.refunded': {
      const charge = event.data.object;
      const paid = await paidShare(idOf(charge.payment_intent), lookups);
      if (!paid) return [];
      // One movement per Refund, however many refunds the charge has had and however often
      // this event comes: https://docs.stripe.com/api/refunds/list
      const refunds = await lookups.refundsOf(charge.id);
      return refunds
        .filter((refund) => refund.status === 'succeeded' || refund.status === 'pending')
        .map((refund) => ({ type: 'refund' as const, reference: `stripe:refund:${refund.id}`, accountId: paid.accountId, amount: -paid.shareOf(refund.amount) }));
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = event.data.object;
      if (event.type === 'charge.dispute.closed' && dispute.status !== 'won') return [];
      const paid = await paidShare(idOf(dispute.payment_intent) ?? idOf((await lookups.charge(idOf(dispute.charge)!)).payment_intent), lookups);
      if (!paid) return [];
      const amount = paid.shareOf(dispute.amount);
      return event.type === 'charge.dispute.created'
        ? [{ type: 'dispute', reference: `stripe:dispute:${dispute.id}`, accountId: paid.accountId, amount: -amount }]
        : [{ type: 'dispute_won', reference: `stripe:dispute_won:${dispute.id}`, accountId: paid.accountId, amount }];
    }
    default:
      return [];
  }
}

/** The account a PaymentIntent of ours paid into, and the credited share of an amount of it in cents. */
async function paidShare(intentId: string | null, lookups: StripeLookups): Promise<{ accountId: string; shareOf(cents: number): bigint } | undefined> {
  if (!intentId) return undefined;
  const intent = await lookups.paymentIntent(intentId);
  const payment = ourPayment(intent.metadata);
  if (!payment || intent.amount <= 0) return undefined;
  // credits × part / whole, rounded down: all the parts together never exceed what was credited.
  return { accountId: payment.accountId, shareOf: (cents) => (payment.credits * BigInt(cents)) / BigInt(intent.amount) };
}
