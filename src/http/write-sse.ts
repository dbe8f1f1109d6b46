import { once } from 'node:events';
import type { FastifyReply } from 'fastify';

export interface SseOptions {
  /** Sent when nothing else was written for `heartbeatMs` (an SSE comment, or Anthropic's ping). */
  heartbeatFrame: string;
  heartbeatMs: number;
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
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': reply.request.id,
  });
  let lastWrite = Date.now();
  const heartbeat = setInterval(() => {
    if (Date.now() - lastWrite >= options.heartbeatMs && !raw.writableEnded && !raw.destroyed) {
      raw.write(options.heartbeatFrame);
      lastWrite = Date.now();
    }
  }, Math.max(50, Math.floor(options.heartbeatMs / 2)));
  const iterator = frames[Symbol.asyncIterator]();
  // The frames decoded from one upstream read arrive within one turn of the event loop: cork the
  // socket for that turn so they leave in one write instead of one syscall per frame.
  let corked = false;
  const uncork = () => {
    corked = false;
    raw.uncork();
  };
  try {
    while (!raw.destroyed) {
      const next = await iterator.next();
      if (next.done) break;
      lastWrite = Date.now();
      if (!corked) {
        corked = true;
        raw.cork();
        setImmediate(uncork);
      }
      if (!raw.write(next.value) && !raw.destroyed) {
        if (corked) uncork();
        await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
      }
    }
  } catch (error) {
    options.onWriteError?.(error);
  } finally {
    if (corked) uncork();
    clearInterval(heartbeat);
    if (raw.destroyed) await iterator.return?.();
    if (!raw.writableEnded) raw.end();
  }
}
