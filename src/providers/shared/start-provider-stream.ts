import { Readable } from 'node:stream';
import type { StreamPart } from '../../core/stream-part.js';
import { createProtocolError } from './create-protocol-error.js';
import { toUpstreamError } from './send-request.js';
import type { StreamConverter } from './stream-converter.js';
import { createAbortedError, UpstreamError, toStreamError } from '../../errors/upstream-error.js';
import type { CancelSignal } from '../../core/cancel-signal.js';

/** An open streaming response body: undici's BodyReadable, or any Readable in tests. */
export interface StreamBody extends AsyncIterable<Uint8Array | string> {
  destroy(error?: Error): unknown;
}

export interface StartProviderStreamOptions {
  providerId: string;
  /** The call's signal: its abort closes the body, and before the first part rejects as `aborted`. */
  signal: CancelSignal;
  /**
   * What is left of the first-byte budget, which for streams covers the first part too: a
   * thinking model can send headers at once and then nothing for a long while.
   */
  firstPartTimeoutMs: number;
}

/**
 * Holds a stream back until its first part, as `TextProviderAdapter.stream` promises: whatever
 * fails before it (an in-band error first thing, a body that ends or breaks at once, no part
 * within the budget, our own abort) rejects with `UpstreamError` while routing can still fail
 * over. Resolves with every part, the first included, ending with exactly one `finish` or
 * `error` part. The upstream body is closed whenever iteration stops: at the end, on an error
 * or an abort, and when the consumer leaves early, even before its first `next()`.
 */
export async function startProviderStream(
  body: StreamBody,
  convert: StreamConverter,
  options: StartProviderStreamOptions,
): Promise<AsyncIterable<StreamPart>> {
  const { providerId, signal } = options;
  // Once a converter has returned its iterator nothing else listens for the body's errors; an
  // abort or timeout that destroys it afterwards must not become an uncaught exception.
  if (body instanceof Readable) body.on('error', ignore);
  let failure: UpstreamError | undefined;
  const parts = convert(withoutDestroyOnReturn(body), {
    providerId,
    onUpstreamError: (error) => {
      failure = error;
    },
  });
  // Ends a pending read at once, whatever the transport has noticed, so that the converter ends
  // with an `aborted` error part.
  const abort = () => body.destroy(createAbortedError(providerId, signal.reason));
  signal.addEventListener('abort', abort, { once: true });
  if (signal.aborted) abort();
  let closed = false;
  const close = (finished = false) => {
    if (closed) return;
    closed = true;
    signal.removeEventListener('abort', abort);
    if (finished) finishQuietly(body);
    else destroyQuietly(body);
  };

  let timeout: UpstreamError | undefined;
  const timer = setTimeout(() => {
    timeout = new UpstreamError({ provider: providerId, status: 0, code: 'upstream_timeout', message: `${providerId} sent no stream event in time` });
    body.destroy(timeout);
  }, Math.max(0, options.firstPartTimeoutMs));
  let first: IteratorResult<StreamPart>;
  try {
    first = await parts.next();
  } catch (error) {
    failure = toUpstreamError(providerId, error);
    first = { done: true, value: undefined };
  } finally {
    clearTimeout(timer);
  }

  if (first.done || first.value.type === 'error' || signal.aborted || timeout) {
    close();
    await parts.return(undefined);
    if (signal.aborted) throw createAbortedError(providerId, failure ?? signal.reason);
    throw timeout ?? failure ?? fromErrorPart(providerId, first.done ? undefined : first.value);
  }
  return handOver(first.value, parts, close, providerId);
}

/** For a converter that yields an `error` part without telling its `UpstreamError`. */
function fromErrorPart(providerId: string, part: StreamPart | undefined): UpstreamError {
  if (part?.type !== 'error') return createProtocolError(providerId, 'ended the stream without any event');
  return new UpstreamError({ provider: providerId, status: part.error.status, message: part.error.message, retryable: true });
}

/**
 * The converters stop reading at their end marker (`[DONE]`, `message_stop`), usually a moment
 * before the body's own end is read. Returning a Node stream's async iterator there would
 * destroy the body with a fresh `AbortError` (a stack trace formatted per stream: ~2 % of a
 * streamed request's CPU). The converter's iterator leaves the body alone instead, and `close`
 * decides: destroyed when the stream was cut short, read quietly to its end when it finished.
 */
function withoutDestroyOnReturn(body: StreamBody): StreamBody {
  if (!(body instanceof Readable)) return body;
  return new QuietBody(body);
}

/**
 * Classes rather than object literals with a computed `[Symbol.asyncIterator]` key, which V8 11
 * defines through a runtime call for every object made (~1 % of a streamed request's CPU).
 */
class QuietBody {
  constructor(private readonly body: Readable) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array | string> {
    return readChunks(this.body);
  }

  destroy(error?: Error): void {
    this.body.destroy(error);
  }
}

class IterableOnce<T> {
  constructor(private readonly iterator: AsyncIterator<T>) {}

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.iterator;
  }
}

/**
 * The body's chunks as `Readable.iterator({ destroyOnReturn: false })` gives them — in order, a
 * destroy's error thrown by the read it ends, a close before the end thrown as a premature
 * close — read straight off the stream's events: Node's iterator is an async generator over
 * `finished()`, whose per-stream listeners and per-chunk generator steps were ~2 % of a
 * streamed request's CPU.
 */
function readChunks(body: Readable): AsyncIterator<Uint8Array | string> {
  let ended = body.readableEnded;
  let failure: unknown = body.errored ?? (body.closed && !ended ? prematureClose() : undefined);
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (error: unknown) => {
    failure ??= error;
    notify();
  };
  const onClose = () => {
    if (!ended) failure ??= body.errored ?? prematureClose();
    notify();
  };
  const detach = () => {
    body.off('readable', notify);
    body.off('end', onEnd);
    body.off('error', onError);
    body.off('close', onClose);
  };
  body.on('readable', notify);
  body.on('end', onEnd);
  body.on('error', onError);
  body.on('close', onClose);
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  return {
    async next() {
      while (true) {
        const chunk: Uint8Array | string | null = body.destroyed ? null : body.read();
        if (chunk !== null) return { done: false, value: chunk };
        if (failure !== undefined) {
          detach();
          throw failure;
        }
        if (ended) {
          detach();
          return done;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    async return() {
      detach();
      return done;
    },
  };
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Lets the rest of a finished body (at most its end) flow away; destroys it if it lingers. */
function finishQuietly(body: StreamBody): void {
  if (!(body instanceof Readable) || body.destroyed || body.readableEnded) return;
  const timer = setTimeout(() => destroyQuietly(body), lingerMs);
  timer.unref();
  body.once('close', () => clearTimeout(timer));
  body.resume();
}

/**
 * Destroys a body cut short, once: undici's body builds a new `RequestAbortedError` on every
 * `destroy()` without an error, even when already destroyed. Its `error` is listened for (see
 * `startProviderStream`).
 */
function destroyQuietly(body: StreamBody): void {
  if (body instanceof Readable && body.destroyed) return;
  body.destroy();
}

/** How long a finished provider body may take to end before its connection is given up. */
const lingerMs = 1_000;

function ignore(): void {}

function handOver(first: StreamPart, parts: AsyncGenerator<StreamPart>, close: (finished?: boolean) => void, providerId: string): AsyncIterable<StreamPart> {
  const state = { finished: false };
  const rest = continueStream(first, parts, close, providerId, state);
  const iterator: AsyncIterator<StreamPart> = {
    next: () => rest.next(),
    async return() {
      // Closing first also settles a `next()` still waiting for upstream bytes, and covers a
      // consumer that leaves before its first `next()`, when `rest` has no `finally` to run yet.
      close(state.finished);
      await rest.return(undefined);
      await parts.return(undefined);
      return { done: true, value: undefined };
    },
  };
  return new IterableOnce(iterator);
}

async function* continueStream(
  first: StreamPart,
  parts: AsyncGenerator<StreamPart>,
  close: (finished?: boolean) => void,
  providerId: string,
  /** `finished` once the `finish` part went out: the body is then read to its end, not destroyed. */
  state: { finished: boolean },
): AsyncGenerator<StreamPart> {
  try {
    let ended = isFinal(first);
    state.finished = first.type === 'finish';
    yield first;
    while (true) {
      let next: IteratorResult<StreamPart>;
      try {
        next = await parts.next();
      } catch (error) {
        if (!ended) yield { type: 'error', error: toStreamError(toUpstreamError(providerId, error)) };
        return;
      }
      if (next.done) break;
      // Past the final part the body is still read to its end, so that its connection can go
      // back to the pool, but nothing more is said.
      if (ended) continue;
      ended = isFinal(next.value);
      state.finished = next.value.type === 'finish';
      yield next.value;
    }
    if (!ended) yield { type: 'error', error: toStreamError(createProtocolError(providerId, 'ended the stream without a final part')) };
  } finally {
    close(state.finished);
  }
}

function isFinal(part: StreamPart): boolean {
  return part.type === 'finish' || part.type === 'error';
}
