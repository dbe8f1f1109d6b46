import type { PassThroughRules } from '../../core/pass-through.js';

/**
 * False when one of the client's top-level fields is not native to the protocol in the style's
 * field table (a hint the gateway does not forward, or a field it translates, such as `reasoning`
 * on Chat Completions or `output_format` on Messages): the request is translated then.
 */
export function forwardsEveryField(body: Record<string, unknown>, rules: PassThroughRules): boolean {
  for (const field in body) if (!rules.forwardable.has(field)) return false;
  return true;
}

/** A copy of the client's top-level fields without the gateway's own, which the provider never gets. */
export function pickForwardedFields(body: Record<string, unknown>, rules: PassThroughRules): Record<string, unknown> {
  const forwarded: Record<string, unknown> = {};
  for (const field in body) if (!rules.gatewayOnly.includes(field)) forwarded[field] = body[field];
  return forwarded;
}
