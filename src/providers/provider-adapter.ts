import type { Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import type { StreamPart } from '../core/stream-part.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';

/** Everything an adapter needs to make one upstream call. */
export interface CallContext {
  provider: ProviderConfig;
  /** The provider's own model name for this endpoint. */
  providerModel: string;
  /** Aborted when the client goes away or the gateway gives up; the upstream request must close. */
  signal: AbortSignal;
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
}
