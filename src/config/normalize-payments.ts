import { usdToNano } from '../core/money.js';
import type { ConfigFile } from './config-schema.js';
import type { PaymentsConfig } from './types.js';

/** Cents are the smallest unit Stripe charges in USD: 10^7 nano-USD. */
const nanoPerCent = 10_000_000n;

/**
 * The `payments:` section as nano-USD. Every amount must be whole cents, since it is what the
 * card is charged; a secret left empty (an unset `${VAR}`) is refused rather than sent to Stripe.
 */
export function normalizePayments(entry: NonNullable<ConfigFile['payments']>, fail: (path: string, expected: string) => never): PaymentsConfig {
  const stripe = entry.stripe;
  if (!stripe) return {};
  const cents = (value: number | string, path: string): bigint => {
    let nano: bigint;
    try {
      nano = usdToNano(value);
    } catch {
      return fail(path, `expected a USD amount, got ${String(value)}`);
    }
    if (nano % nanoPerCent !== 0n) fail(path, `expected whole cents, got ${String(value)}`);
    return nano;
  };
  if (stripe.secret_key === '') fail('payments.stripe.secret_key', 'expected the Stripe secret key (an unset ${VAR} counts as empty)');
  if (stripe.webhook_secret === '') fail('payments.stripe.webhook_secret', 'expected the webhook signing secret (an unset ${VAR} counts as empty)');
  const min = cents(stripe.min ?? 5, 'payments.stripe.min');
  const max = cents(stripe.max ?? 1000, 'payments.stripe.max');
  if (min <= 0n || max < min) fail('payments.stripe.max', 'expected 0 < min ≤ max');
  const amounts = (stripe.amounts ?? [5, 10, 25, 100]).map((amount, index) => cents(amount, `payments.stripe.amounts[${index}]`));
  amounts.forEach((amount, index) => {
    if (amount < min || amount > max) fail(`payments.stripe.amounts[${index}]`, 'expected an amount within min…max');
  });
  let feePercentNano: bigint;
  try {
    feePercentNano = usdToNano(stripe.fee_percent ?? 0);
  } catch {
    return fail('payments.stripe.fee_percent', `expected a percentage with at most 9 decimals, got ${String(stripe.fee_percent)}`);
  }
  if (feePercentNano > 100n * 1_000_000_000n) fail('payments.stripe.fee_percent', 'expected a percentage from 0 to 100');
  return {
    stripe: {
      secretKey: stripe.secret_key,
      webhookSecret: stripe.webhook_secret,
      ...(stripe.api_base && { apiBase: stripe.api_base.replace(/\/+$/, '') }),
      currency: 'usd',
      amounts,
      min,
      max,
      feePercentNano,
      feeFixed: cents(stripe.fee_fixed ?? 0, 'payments.stripe.fee_fixed'),
      autoTopUpCheckMs: stripe.auto_top_up_check_ms ?? 5_000,
    },
  };
}
