import type { ErrorCode } from '../errors/error-codes.js';
import type { Citation } from './content.js';
import type { HostedToolCall } from './hosted-tool-call.js';
import type { FinishReason, StopDetails } from './finish-reason.js';
import type { Usage } from './usage.js';

/**
 * Typed parts of a generation stream. Provider adapters turn upstream SSE into these; inbound
 * encoders turn them into the client's SSE. Every stream ends with exactly one `finish` or
 * `error` part, and nothing follows it.
 *
 * Tool calls are numbered by `index` in the order the model starts them (0, 1, …), whatever
 * numbering the provider uses; `tool-call-delta` parts follow their `tool-call-start`.
 */
export type StreamPart =
  /**
   * `usage` is what the provider already counted when it started (Anthropic sends the input
   * count in `message_start`); the final counts still come with `finish`.
   */
  | { type: 'start'; providerResponseId?: string; providerModel?: string; usage?: Usage }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  /**
   * Completes a reasoning block with its signature (Anthropic `signature_delta`). It may arrive
   * with no `reasoning-delta` before it, and after text or tool-call parts: Gemini signs a later
   * part (a function call, a text part, sometimes an empty one at the end) instead of its
   * thinking, and the signature comes just before that part's own deltas.
   */
  | { type: 'reasoning-signature'; signature: string }
  /** A whole Anthropic `redacted_thinking` block: opaque data to pass back verbatim next turn. */
  | { type: 'reasoning-redacted'; data: string }
  /**
   * A source cited for the text streamed so far: for its last `textLength` characters (UTF-16
   * units, as JavaScript counts), or for the answer as a whole when `textLength` is absent.
   */
  | { type: 'citation'; citation: Citation; textLength?: number }
  /** A hosted tool the gateway started running (contract §4a): the call without its result yet, sent as it starts. */
  | { type: 'hosted-tool-start'; call: HostedToolCall }
  /** A hosted tool the gateway ran (contract §4a), complete with its result, before the text it informed. */
  | { type: 'hosted-tool-call'; call: HostedToolCall }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  /** `cost` (nano-USD) is set by the gateway after pricing, before the part reaches an encoder. */
  | {
      type: 'finish';
      finishReason: FinishReason;
      stopSequence?: string;
      stopDetails?: StopDetails;
      usage: Usage;
      cost?: bigint;
      /** Pass-through only: the provider's closing events, held back to be sent with the cost. */
      held?: HeldEvent[];
    }
  | { type: 'error'; error: StreamError };

export interface StreamError {
  message: string;
  /**
   * A provider failure's `upstream_error`, `upstream_timeout`, `rate_limited` or
   * `service_unavailable`, our own `internal_error` (codes of `errors/error-codes.ts`), or the
   * internal `aborted` when our own signal ended the call (never shown to clients).
   */
  code: ErrorCode | 'aborted';
  /** HTTP-like status describing the failure: 504 for `upstream_timeout`, 429 for `rate_limited`, else 502. */
  status: number;
}

/**
 * The native pass-through relays the provider's own events (see `generation/plan-pass-through.ts`):
 * each goes to the client as `frame`, already rewritten where the gateway must (its id, model,
 * tagged signatures), next to the canonical parts that the meter reads for usage and errors.
 */
export interface RelayFrame {
  type: 'relay-frame';
  /** One or more complete SSE frames (`event: …\ndata: …\n\n`), in the provider's order. */
  frame: string;
}

/** A provider event held until the charge is known; `data` is a JSON object, or a sentinel such as `[DONE]`. */
export interface HeldEvent {
  event?: string;
  data: Record<string, unknown> | string;
}

/**
 * A relayed stream: canonical parts that may carry the provider events they came from as `frame`
 * (one or more whole SSE frames: the OpenAI relay joins the events of one upstream read into one
 * part, whose text is theirs joined), and bare frames for events without a part.
 */
export type RelayedPart = (StreamPart & { frame?: string }) | RelayFrame;
