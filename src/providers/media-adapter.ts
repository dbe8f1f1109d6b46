import type { ProviderApi } from '../config/types.js';
import type { ImageJobHandle, ImageJobState, ImageRequest } from '../core/image-request.js';
import type { SpeechRequest } from '../core/speech-request.js';
import type { CallContext } from './provider-adapter.js';

/** A request field a protocol cannot honour, so that routing can skip it or refuse naming the field. */
export interface Incapability {
  field: string;
  reason: string;
}

/**
 * Speech over one wire protocol. `synthesize` resolves with the whole audio file in the requested
 * format, or rejects with `UpstreamError`.
 */
export interface SpeechAdapter {
  readonly api: ProviderApi;
  incapability(request: SpeechRequest): Incapability | undefined;
  synthesize(request: SpeechRequest, context: CallContext): Promise<Buffer>;
}

/**
 * Images over one wire protocol. Synchronous protocols answer `start` with the finished images;
 * queue protocols (fal) answer a pending job, followed with `poll` until it ends. Both reject
 * with `UpstreamError` when the provider cannot be asked (unreachable, error status).
 */
export interface ImageAdapter {
  readonly api: ProviderApi;
  incapability(request: ImageRequest): Incapability | undefined;
  start(request: ImageRequest, context: CallContext): Promise<ImageJobState>;
  poll?(job: ImageJobHandle, context: CallContext): Promise<ImageJobState>;
}
