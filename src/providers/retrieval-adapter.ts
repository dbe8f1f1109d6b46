import type { ProviderApi } from '../config/types.js';
import type { EmbeddingRequest, EmbeddingResult } from '../core/embedding-request.js';
import type { ModerationRequest, ModerationResult } from '../core/moderation-request.js';
import type { RerankRequest, RerankResult } from '../core/rerank-request.js';
import type { Incapability } from './media-adapter.js';
import type { CallContext } from './provider-adapter.js';

/**
 * Embeddings over one wire protocol. `embed` sends at most `maxInputsPerCall` inputs (the caller
 * splits larger requests and joins the answers in order) and rejects with `UpstreamError`.
 */
export interface EmbeddingAdapter {
  readonly api: ProviderApi;
  /** The most inputs one upstream call may carry for this provider model (the vendor's documented limit). */
  maxInputsPerCall(providerModel: string): number;
  incapability(request: EmbeddingRequest, providerModel: string): Incapability | undefined;
  embed(request: EmbeddingRequest, context: CallContext): Promise<EmbeddingResult>;
}

/** Rerank over one wire protocol; rejects with `UpstreamError`. */
export interface RerankAdapter {
  readonly api: ProviderApi;
  incapability(request: RerankRequest, providerModel: string): Incapability | undefined;
  rerank(request: RerankRequest, context: CallContext): Promise<RerankResult>;
}

/** Moderations over one wire protocol; rejects with `UpstreamError`. */
export interface ModerationAdapter {
  readonly api: ProviderApi;
  incapability(request: ModerationRequest, providerModel: string): Incapability | undefined;
  moderate(request: ModerationRequest, context: CallContext): Promise<ModerationResult>;
}
