import type { TextProviderApi } from './protocol-descriptor.js';

/**
 * What a client style hands generation for its pass-through (derived from its field table on
 * the api side, so that generation reads no api tables): the protocol whose wire the style is,
 * and which of its top-level fields may go to that protocol as they came.
 */
export interface PassThroughRules {
  protocol: TextProviderApi;
  /** Top-level fields that may be forwarded. */
  forwardable: ReadonlySet<string>;
  /** The gateway's own fields: read by the gateway, never sent to the provider. */
  gatewayOnly: readonly string[];
}

/** The client's body as it came, and its style's rules; absent when pass-through is off. */
export interface PassThroughInput {
  body: Record<string, unknown>;
  rules: PassThroughRules;
}

/** The client's body as the provider gets it, planned by the protocol (its relay's `planPassThrough`). */
export interface PassThroughPlan {
  body: Record<string, unknown>;
}
