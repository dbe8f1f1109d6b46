import type { StreamPart } from '../../core/stream-part.js';
import { toStreamError, type UpstreamError } from '../../errors/upstream-error.js';
import { toUpstreamError } from './send-request.js';

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

/**
 * Drives a protocol's event handler over its events: yields each part until the one `finish` or
 * `error` part, then reads the rest of the body without converting it (so its connection can go
 * back to the pool); a failed read is the stream's error part; a body that ends first gets
 * `end()` (a finish the handler can still give, or a protocol error). Closing the generator
 * early closes `events`, and with it the upstream body.
 */
export async function* driveEventHandler<Event>(
  events: AsyncIterable<Event>,
  handle: (event: Event) => Iterable<StreamPart>,
  end: () => StreamPart,
  options: StreamConverterOptions,
): AsyncGenerator<StreamPart> {
  const iterator = events[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (true) {
      let next: IteratorResult<Event>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (!ended) yield toErrorPart(toUpstreamError(options.providerId, error), options);
        return;
      }
      if (next.done) break;
      if (ended) continue;
      for (const part of handle(next.value)) {
        ended = part.type === 'finish' || part.type === 'error';
        yield part;
        if (ended) break;
      }
    }
    if (!ended) yield end();
  } finally {
    await iterator.return?.();
  }
}
