import { once } from 'node:events';
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { withFields } from '../core/with-fields.js';

export interface SseOptions {
  /** Sent when nothing else was written for `heartbeatMs` (an SSE comment, or Anthropic's ping). */
  heartbeatFrame: string;
  heartbeatMs: number;
  /** Default `text/event-stream; charset=utf-8`; a stream of another framing names its own. */
  contentType?: string;
  /** Called if writing fails after the headers went out (the client went away mid-write). */
  onWriteError?: (error: unknown) => void;
}

/**
 * Streams SSE frames to the client. Takes the response over from Fastify, honours backpressure
 * (waits for `drain`), and keeps idle connections alive with heartbeats while the upstream is
 * silent. Stopping early (client gone) returns the frame iterator, which closes the upstream.
 */
export async function writeSse(reply: FastifyReply, frames: AsyncIterable<string>, options: SseOptions): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  // The headers set on the reply before it was taken over (CORS, x-switchyard-provider and
  // -omitted, `connection: close` while draining) go out with the stream's own. `Connection` is
  // Node's to write, as on every other answer: with it comes `Keep-Alive: timeout=N`, without
  // which a client keeps the idle connection past the gateway's close and a request it sends
  // then is reset (test/edge/stream-keep-alive.test.ts).
  raw.writeHead(
    200,
    withFields(reply.getHeaders() as OutgoingHttpHeaders, {
      'content-type': options.contentType ?? 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-request-id': reply.request.id,
    }),
  );
  let lastWrite = Date.now();
  const heartbeat = setInterval(() => {
    if (Date.now() - lastWrite >= options.heartbeatMs && !raw.writableEnded && !raw.destroyed) {
      flush();
      raw.write(options.heartbeatFrame);
      lastWrite = Date.now();
    }
  }, Math.max(50, Math.floor(options.heartbeatMs / 2)));
  const iterator = frames[Symbol.asyncIterator]();
  // The frames decoded from one upstream read arrive within one turn of the event loop: they are
  // joined and written once at the end of that turn — one chunk of the chunked encoding and one
  // syscall, instead of a chunk (size line, data, CRLF) per frame.
  let pending = '';
  let flushScheduled = false;
  let blocked: Promise<unknown> | undefined;
  const flush = () => {
    flushScheduled = false;
    if (pending === '' || raw.destroyed || raw.writableEnded) return;
    const chunk = pending;
    pending = '';
    if (!raw.write(chunk) && !raw.destroyed) {
      blocked = Promise.race([once(raw, 'drain'), once(raw, 'close')]).finally(() => {
        blocked = undefined;
      });
    }
  };
  try {
    while (!raw.destroyed) {
      // Backpressure: a client that reads slowly holds the upstream back instead of the memory.
      if (blocked) await blocked;
      const next = await iterator.next();
      if (next.done) break;
      lastWrite = Date.now();
      pending += next.value;
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    }
  } catch (error) {
    options.onWriteError?.(error);
  } finally {
    clearInterval(heartbeat);
    if (raw.destroyed) await iterator.return?.();
    // The last frames go with the end of the response: one write for both.
    const rest = pending;
    pending = '';
    if (!raw.writableEnded) raw.end(rest === '' || raw.destroyed ? undefined : rest);
  }
}
