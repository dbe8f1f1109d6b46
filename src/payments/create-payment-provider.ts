import type { Config } from '../config/types.js';
import type { PaymentProvider } from './payment-provider.js';
import { StripeProvider } from './stripe/stripe-provider.js';

/** The configured payment provider, or null when payments are off (no checkout, no webhook route). */
export function createPaymentProvider(config: Config): PaymentProvider | null {
  const stripe = config.payments?.stripe;
  return stripe ? new StripeProvider(stripe) : null;
}
