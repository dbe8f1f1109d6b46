import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { buildTestConfig, testCatalogYaml } from '../helpers/test-config.js';
import { computeFee } from '../../src/payments/compute-fee.js';

const withPayments = (stripe: string, env: NodeJS.ProcessEnv = {}) => buildTestConfig({ yaml: `${testCatalogYaml}payments:\n  stripe: ${stripe}\n`, env });
const refusal = (stripe: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    withPayments(stripe, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
};

/** The `payments:` section (docs/payments.md): exact amounts, whole cents, secrets from the environment. */
describe('payments config', () => {
  it('reads secrets from the environment, amounts as exact nano-USD, and the contract defaults', () => {
    const config = withPayments('{secret_key: "${STRIPE_SECRET_KEY}", webhook_secret: "${STRIPE_WEBHOOK_SECRET}", fee_percent: 2.9, fee_fixed: 0.3}', {
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
    });
    expect(config.payments?.stripe).toEqual({
      secretKey: 'sk_test_1',
      webhookSecret: 'whsec_1',
      currency: 'usd',
      amounts: [5_000_000_000n, 10_000_000_000n, 25_000_000_000n, 100_000_000_000n],
      min: 5_000_000_000n,
      max: 1_000_000_000_000n,
      feePercentNano: 2_900_000_000n,
      feeFixed: 300_000_000n,
      autoTopUpCheckMs: 5000,
    });
    // 2.9 % of 10 is 0.29, of 10.01 is 0.29029 → 0.30 (up to the cent), plus 0.30.
    expect(computeFee(10_000_000_000n, config.payments!.stripe!)).toBe(590_000_000n);
    expect(computeFee(10_010_000_000n, config.payments!.stripe!)).toBe(600_000_000n);
  });

  it('refuses an unset secret, amounts finer than a cent, bounds the wrong way round and other currencies', () => {
    expect(refusal('{secret_key: "${UNSET_STRIPE_KEY}", webhook_secret: whsec_1}')).toContain('payments.stripe.secret_key');
    expect(refusal('{secret_key: sk_1, webhook_secret: whsec_1, min: 5.001}')).toContain('payments.stripe.min: expected whole cents');
    expect(refusal('{secret_key: sk_1, webhook_secret: whsec_1, min: 50, max: 10}')).toContain('payments.stripe.max');
    expect(refusal('{secret_key: sk_1, webhook_secret: whsec_1, amounts: [1]}')).toContain('payments.stripe.amounts[0]');
    expect(refusal('{secret_key: sk_1, webhook_secret: whsec_1, currency: eur}')).toContain('payments.stripe.currency');
    expect(refusal('{secret_key: sk_1, webhook_secret: whsec_1, fee_percent: 101}')).toContain('payments.stripe.fee_percent');
  });
});
