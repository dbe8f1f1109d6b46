/**
 * How many calls one provider carries at once, and the line for the rest. Plain data, read by the
 * config (the defaults an entry without `connections` gets) and enforced by the provider layer's
 * `shared/provider-slots.ts`.
 */
export interface ProviderConnectionLimits {
  /** Calls (= connections: no pipelining) open at once. */
  max: number;
  /** Calls that may wait for a free connection; more are refused at once (503). */
  queue: number;
  /** Longest wait for a free connection; then the call is refused (503). */
  queueTimeoutMs: number;
}

/** What a provider gets when its config says nothing (docs/operations.md, "Timeouts and bounds"). */
export const defaultConnectionLimits: ProviderConnectionLimits = { max: 256, queue: 256, queueTimeoutMs: 5_000 };
