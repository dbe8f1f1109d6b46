import type { StreamPart } from '../../core/stream-part.js';
import { toStreamError, type UpstreamError } from '../../errors/upstream-error.js';

/**
 * What every protocol's `convert-stream.ts` takes besides its events. A converter builds each
 * `error` part with `toErrorPart`, so that the `UpstreamError` behind it reaches
 * `onUpstreamError` first: before the first part, `startProviderStream` rejects with that error
 * and keeps its status, retryability and Retry-After, which the in-band part no longer carries
 * (a Gemini in-band 400 must not fail over; a 503 should).
 */
export interface StreamConverterOptions {
  providerId: string;
  onUpstreamError?: (error: UpstreamError) => void;
}

/** An upstream streaming body → canonical parts, ending with one `finish` or `error` part. */
export type StreamConverter = (body: AsyncIterable<Uint8Array | string>, options: StreamConverterOptions) => AsyncGenerator<StreamPart>;

/** The final `error` part for `error`, told to `onUpstreamError` on the way. */
export function toErrorPart(error: UpstreamError, options: StreamConverterOptions): StreamPart {
  options.onUpstreamError?.(error);
  return { type: 'error', error: toStreamError(error) };
}
