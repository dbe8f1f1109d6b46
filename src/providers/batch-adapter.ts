import type { ProviderApi, ProviderConfig } from '../config/types.js';
import type { EmbeddingRequest, EmbeddingResult } from '../core/embedding-request.js';
import type { TextRequest } from '../core/text-request.js';
import type { TextResult } from '../core/text-result.js';

/**
 * A provider's own batch API (OpenAI Batch over its Files, Anthropic Message Batches, Gemini batch
 * mode), as the gateway's batch engine uses it for the lines an endpoint with
 * `pricing.batch_discount` serves (`batches/run-provider-batch.ts`). The engine groups lines by
 * provider, model and kind, submits them in chunks of at most `maxRequestsPerBatch`, polls, and
 * settles each line from its result by `customId` (the engine's own, `[a-zA-Z0-9_-]{1,64}`).
 *
 * Calls reject with `UpstreamError` (the engine keeps the lines pending and tries again).
 */
export type ProviderBatchKind = 'text' | 'embeddings';

/** One request of a provider batch: the body the provider's live endpoint would take. */
export interface ProviderBatchRequest {
  customId: string;
  body: Record<string, unknown>;
}

/** Where a provider batch stands; `ended` once no request in it will change any more. */
export interface ProviderBatchState {
  id: string;
  ended: boolean;
  /** Whatever the adapter needs to read the results (a results URL, output file ids); opaque to the engine. */
  resultsRef?: unknown;
}

/** The outcome of one request of an ended provider batch. */
export type ProviderBatchResult =
  | { customId: string; kind: 'succeeded'; body: Record<string, unknown> }
  /** The provider's error for this request: its HTTP status (as the live endpoint would answer) and its error envelope. */
  | { customId: string; kind: 'errored'; status: number; error: unknown }
  | { customId: string; kind: 'canceled' | 'expired' };

export interface ProviderBatchAdapter {
  readonly api: ProviderApi;
  /** The kinds of line this protocol's batch API serves on `provider` (empty: none, e.g. a cloud platform without it). */
  kindsFor(provider: ProviderConfig): ReadonlySet<ProviderBatchKind>;
  readonly maxRequestsPerBatch: number;
  /** The provider wire body of a text line (what the adapter's live `generate` would send, non-streaming). */
  encodeText(request: TextRequest, providerModel: string): Record<string, unknown>;
  /**
   * A succeeded text result's body, read as the live `generate` reads it (usage included).
   * `request` is the line's canonical request when the engine has it (an adapter that emulates a
   * feature, such as Anthropic's JSON mode, reads it back); without it, the usage is still exact.
   */
  decodeText(body: Record<string, unknown>, provider: ProviderConfig, request?: TextRequest): TextResult;
  encodeEmbeddings?(request: EmbeddingRequest, providerModel: string): Record<string, unknown>;
  decodeEmbeddings?(body: Record<string, unknown>, request: EmbeddingRequest): EmbeddingResult;
  create(provider: ProviderConfig, providerModel: string, kind: ProviderBatchKind, requests: readonly ProviderBatchRequest[], signal: AbortSignal): Promise<ProviderBatchState>;
  retrieve(provider: ProviderConfig, batchId: string, signal: AbortSignal): Promise<ProviderBatchState>;
  /** The results of an ended batch, one per request it held (a request with none is treated as errored by the engine). */
  results(provider: ProviderConfig, state: ProviderBatchState, signal: AbortSignal): Promise<ProviderBatchResult[]>;
  /** Asks the provider to stop the batch; its unprocessed requests then end `canceled`. */
  cancel(provider: ProviderConfig, batchId: string, signal: AbortSignal): Promise<void>;
}
