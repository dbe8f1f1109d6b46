import type { FastifyReply } from 'fastify';
import { RequestCancellation } from '../core/cancel-signal.js';

/**
 * A cancellation that aborts when the client goes away before the answer was sent. Not an
 * AbortController: Node 20's AbortSignal is slow to make and to use (see RequestCancellation).
 */
export function abortOnClientClose(reply: FastifyReply): RequestCancellation {
  const cancellation = new RequestCancellation();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) cancellation.abort();
  });
  return cancellation;
}
