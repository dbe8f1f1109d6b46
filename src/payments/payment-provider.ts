import type { AuditActor } from '../audit/record-audit.js';

/**
 * What Switchyard needs of a payment provider (contract §7, docs/payments.md): a hosted checkout
 * for a top-up, an off-session charge of a saved payment method for auto top-up, and its webhooks
 * verified and read into the few events that move money. Amounts are nano-USD; the provider turns
 * them into its own units. Another provider is one file implementing this interface.
 */
export interface PaymentProvider {
  /** The provider's name, stored with each account's customer (`payment_customers.provider`). */
  readonly name: string;
  /** The provider's customer for an account, made once (idempotent per account). */
  createCustomer(accountId: string): Promise<string>;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** The ledger reference a checkout's credit posts under (`GET /v1/credits/checkout/{id}` looks it up). */
  checkoutReference(checkoutId: string): string;
  /** The checkout as the provider sees it now; undefined when it does not know the id. */
  findCheckout(id: string): Promise<CheckoutStatus | undefined>;
  /** Charges a saved payment method without the customer present. Never throws for a decline: answers it. */
  chargeSavedMethod(request: OffSessionCharge): Promise<OffSessionOutcome>;
  /**
   * Verifies a webhook over its raw body and reads it into money events (none for a type that
   * moves no money). Throws `WebhookSignatureError` on a missing, wrong or stale signature; may
   * call the provider's API to complete an event (an account, a receipt), and throws when it
   * cannot, so that the provider delivers it again.
   */
  readWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<PaymentEvent[]>;
}

export class WebhookSignatureError extends Error {}

export interface CheckoutRequest {
  accountId: string;
  customerId: string;
  /** Credited to the account. */
  credits: bigint;
  /** Paid on top, not credited. */
  fee: bigint;
  /** Who started it: carried with the checkout, so the top-up's audit entry names them (contract §8). */
  actor: AuditActor;
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutSession {
  id: string;
  /** Where the customer pays. */
  url: string;
}

export interface CheckoutStatus {
  id: string;
  accountId: string | null;
  credits: bigint | null;
  /** `open`, `complete` or `expired`. */
  status: string;
  paid: boolean;
}

export interface OffSessionCharge {
  accountId: string;
  customerId: string;
  paymentMethodId: string;
  credits: bigint;
  fee: bigint;
  /** One per threshold crossing, and the payment's idempotency key: a retried create must not make a second payment. */
  claimId: string;
}

export type OffSessionOutcome =
  | { status: 'succeeded'; paymentId: string; event: Extract<PaymentEvent, { type: 'auto_top_up' }> }
  | { status: 'pending'; paymentId: string }
  | { status: 'declined'; paymentId: string | null; message: string };

/**
 * A money event. `reference` is what makes it post once (`billing/db/post-movement.ts`); amounts
 * are what the account gains (a refund's and a dispute's are negative).
 */
export type PaymentEvent =
  | { type: 'top_up'; reference: string; accountId: string; amount: bigint; receiptUrl: string | null; customerId: string | null; paymentMethodId: string | null; actor: AuditActor | null }
  | { type: 'auto_top_up'; reference: string; accountId: string; amount: bigint; receiptUrl: string | null; claimId: string | null }
  | { type: 'auto_top_up_failed'; accountId: string; claimId: string | null; message: string }
  | { type: 'refund' | 'dispute' | 'dispute_won'; reference: string; accountId: string; amount: bigint };
