import { createHmac } from 'node:crypto';

/**
 * The `x-switchyard-signature` header (contract §8): `t=<unix seconds>,v1=<hex HMAC-SHA-256 of
 * "<t>.<body>" with the webhook's secret>`, Stripe's scheme, so receivers can reuse what they know.
 * The timestamp is signed with the body, so a captured delivery cannot be replayed later under a
 * fresh time; a receiver rejects old timestamps. How a receiver verifies it: docs/api.md, "Alerts".
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

