import type { Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import type { RelayedPart, StreamPart } from '../core/stream-part.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';
import type { Usage } from '../core/usage.js';
import type { CancelSignal } from '../core/cancel-signal.js';
import type { PassThroughPlan, PassThroughRules } from '../core/pass-through.js';

/** Everything an adapter needs to make one upstream call. */
export interface CallContext {
  provider: ProviderConfig;
  /** The provider's own model name for this endpoint. */
  providerModel: string;
  /** Aborted when the client goes away or the gateway gives up; the upstream request must close. */
  signal: CancelSignal;
  /** Pooled keep-alive connections for this provider. */
  dispatcher: Dispatcher;
}

/**
 * One wire protocol (openai, anthropic, gemini). Adapters are stateless: stream state lives in
 * the closure of each call.
 *
 * Errors: both methods reject with `UpstreamError` for anything that happens before the first
 * stream part is available (HTTP error status, connect failure, first-byte timeout), so that
 * routing can still fail over. Once `stream` has resolved, failures arrive in-band as a final
 * `error` part, and every stream ends with exactly one `finish` or `error` part.
 */
export interface TextProviderAdapter {
  readonly api: ProviderConfig['api'];
  generate(request: TextRequest, context: CallContext): Promise<TextResult>;
  stream(request: TextRequest, context: CallContext): Promise<AsyncIterable<StreamPart>>;
  /** Present on the protocols that have a client style of their own. */
  readonly relay?: TextRelay;
  /**
   * True when the model named (the provider's model name) refuses `temperature` and `top_p` in
   * one request: a model-family fact the protocol knows (Claude's recent families, on Anthropic's
   * wire and behind Bedrock's Converse), asked by generation, which then leaves `top_p` out
   * (`generation/drop-unmet-preferences.ts`). Absent: every model takes both.
   */
  refusesTemperatureWithTopP?(providerModel: string): boolean;
}

/** What a relay writes over in the provider's answer: the gateway's id and model, and signature tags. */
export interface RelayIdentity {
  id: string;
  model: string;
  tagSignature(signature: string): string;
}

/**
 * One native pass-through call (`generation/plan-pass-through.ts`): the client's body, already
 * stripped of what only the gateway reads, and the decoded request, whose `maxTokens` is the cap
 * the gateway fixed (the client's, lowered to the endpoint's or to what the funds allow).
 */
export interface RelayCall {
  body: Record<string, unknown>;
  request: TextRequest;
  identity: RelayIdentity;
}

export interface RelayedAnswer {
  /** The provider's answer in the protocol's official shape, with the gateway's id and model. */
  body: Record<string, unknown>;
  usage: Usage;
  /** The answer's generated text, read only when usage must be estimated. */
  text(): string;
}

/**
 * The native pass-through of a protocol whose wire is also a client style (openai: Chat
 * Completions; anthropic: Messages). The protocol sets the upstream cap its own way, and reads
 * the provider's dialect leniently: what reaches the client is the official shape (contract §4,
 * "one dialect out"), with the same errors and stream ending as the translated path.
 */
export interface TextRelay {
  /**
   * The client's body as this protocol forwards it, or undefined when the request must be
   * translated instead. Asked by `generation/plan-pass-through.ts` once the checks every protocol
   * shares have passed (same protocol, pass-through on, reasoning the endpoint can do); `model`
   * is the endpoint's (the provider's name for it).
   */
  planPassThrough(body: Record<string, unknown>, rules: PassThroughRules, model: string): PassThroughPlan | undefined;
  relay(call: RelayCall, context: CallContext): Promise<RelayedAnswer>;
  relayStream(call: RelayCall, context: CallContext): Promise<AsyncIterable<RelayedPart>>;
}
