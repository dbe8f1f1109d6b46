import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `x-switchyard-signature` header (contract §8): `t=<unix seconds>,v1=<hex HMAC-SHA-256 of
 * "<t>.<body>" with the webhook's secret>`, Stripe's scheme, so receivers can reuse what they know.
 * The timestamp is signed with the body, so a captured delivery cannot be replayed later under a
 * fresh time; a receiver rejects old timestamps.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** The receiver's side, as docs/api.md shows it: true when `header` signs `body` with `secret`. */
export function verifyWebhookSignature(secret: string, body: string, header: string): boolean {
  const parts = new Map(header.split(',').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = Buffer.from(signWebhook(secret, body, t).slice(`t=${t},v1=`.length), 'hex');
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
