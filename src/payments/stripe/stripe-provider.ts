import Stripe from 'stripe';
import type { StripeConfig } from '../../config/types.js';
import { nanoToCents } from '../compute-fee.js';
import {
  WebhookSignatureError,
  type CheckoutRequest,
  type CheckoutSession,
  type CheckoutStatus,
  type OffSessionCharge,
  type OffSessionOutcome,
  type PaymentEvent,
  type PaymentProvider,
} from '../payment-provider.js';
import { checkoutReference, readStripeEvent, type StripeLookups } from './read-stripe-event.js';

/** Stripe's tolerance for a signature's age, which the contract fixes at 300 s. */
const signatureToleranceSeconds = 300;

/**
 * Payments through Stripe's official SDK: Checkout Sessions for top-ups (a card saved for later
 * with `setup_future_usage: off_session`), off-session PaymentIntents for auto top-up, and
 * webhooks verified by `stripe.webhooks.constructEvent` over the raw body.
 * https://docs.stripe.com/payments/checkout/save-during-payment, https://docs.stripe.com/webhooks
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;
  private readonly lookups: StripeLookups;

  constructor(private readonly settings: StripeConfig) {
    this.stripe = new Stripe(settings.secretKey, { ...addressOf(settings.apiBase), maxNetworkRetries: 2, timeout: 20_000 });
    const stripe = this.stripe;
    this.lookups = {
      paymentIntent: (id) => stripe.paymentIntents.retrieve(id),
      charge: (id) => stripe.charges.retrieve(id),
      refundsOf: async (chargeId) => (await stripe.refunds.list({ charge: chargeId, limit: 100 })).data,
    };
  }

  async createCustomer(accountId: string): Promise<string> {
    // One per account even when two checkouts start at once: Stripe answers the same customer
    // to a repeated idempotency key (for 24 h; the row in payment_customers keeps it after).
    const customer = await this.stripe.customers.create({ metadata: { account_id: accountId } }, { idempotencyKey: `switchyard-customer-${accountId}` });
    return customer.id;
  }

  async createCheckout(request: CheckoutRequest): Promise<CheckoutSession> {
    const metadata = { account_id: request.accountId, credits_nano: request.credits.toString(), switchyard_kind: 'top_up', actor_type: request.actor.type, actor_id: request.actor.id };
    const line = (name: string, amount: bigint) => ({ quantity: 1, price_data: { currency: this.settings.currency, unit_amount: nanoToCents(amount), product_data: { name } } });
    const session = await this.stripe.checkout.sessions.create({
      mode: 'payment',
      customer: request.customerId,
      client_reference_id: request.accountId,
      // The fee is its own line, so the receipt shows what was credited and what was not.
      line_items: request.fee > 0n ? [line('Credits', request.credits), line('Payment fee', request.fee)] : [line('Credits', request.credits)],
      metadata,
      payment_intent_data: { setup_future_usage: 'off_session', metadata },
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
    });
    if (!session.url) throw new Error(`Stripe answered Checkout Session ${session.id} without a url`);
    return { id: session.id, url: session.url };
  }

  checkoutReference(checkoutId: string): string {
    return checkoutReference(checkoutId);
  }

  async findCheckout(id: string): Promise<CheckoutStatus | undefined> {
    try {
      const session = await this.stripe.checkout.sessions.retrieve(id);
      const credits = session.metadata?.credits_nano;
      return {
        id: session.id,
        accountId: session.client_reference_id ?? null,
        credits: credits && /^\d+$/.test(credits) ? BigInt(credits) : null,
        status: session.status ?? 'open',
        paid: session.payment_status === 'paid',
      };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  async chargeSavedMethod(request: OffSessionCharge): Promise<OffSessionOutcome> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: nanoToCents(request.credits + request.fee),
          currency: this.settings.currency,
          customer: request.customerId,
          payment_method: request.paymentMethodId,
          off_session: true,
          confirm: true,
          description: 'Switchyard auto top-up',
          metadata: { account_id: request.accountId, credits_nano: request.credits.toString(), switchyard_kind: 'auto_top_up', auto_top_up_claim: request.claimId },
        },
        { idempotencyKey: `switchyard-auto-top-up-${request.claimId}` },
      );
      if (intent.status === 'succeeded') {
        const receiptUrl = await this.receiptOf(intent.latest_charge);
        return { status: 'succeeded', paymentId: intent.id, event: { type: 'auto_top_up', reference: paymentIntentReference(intent.id), accountId: request.accountId, amount: request.credits, receiptUrl, claimId: request.claimId } };
      }
      if (intent.status === 'processing') return { status: 'pending', paymentId: intent.id };
      return { status: 'declined', paymentId: intent.id, message: intent.last_payment_error?.message ?? `payment ${intent.status}` };
    } catch (error) {
      // A decline (or a card that needs the customer, `authentication_required`) is a card error
      // carrying the PaymentIntent: https://docs.stripe.com/payments/save-during-payment#charge-saved-payment-method
      if (error instanceof Stripe.errors.StripeCardError) {
        // The SDK prefixes its request id to `message`; the issuer's words are the error's own.
        const message = error.payment_intent?.last_payment_error?.message ?? (error.raw as { message?: string } | undefined)?.message ?? error.message;
        return { status: 'declined', paymentId: error.payment_intent?.id ?? null, message };
      }
      throw error;
    }
  }

  async readWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent[]> {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string' || signature === '') throw new WebhookSignatureError('Missing Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret, signatureToleranceSeconds);
    } catch (error) {
      throw new WebhookSignatureError((error as Error).message);
    }
    return readStripeEvent(event, this.lookups);
  }

  private async receiptOf(charge: string | Stripe.Charge | null): Promise<string | null> {
    if (charge === null) return null;
    return (typeof charge === 'string' ? await this.lookups.charge(charge) : charge).receipt_url ?? null;
  }
}

export function paymentIntentReference(id: string): string {
  return `stripe:payment_intent:${id}`;
}

/** `api_base` (tests: the fake Stripe on loopback) as the SDK's host, port and protocol. */
function addressOf(apiBase: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}
