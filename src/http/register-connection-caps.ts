import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../app-context.js';
import { startRequestRecord } from '../billing/start-request-record.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { HttpLimits } from '../config/http-limits.js';

/**
 * Two caps that keep memory bounded under load: how many large bodies are being received at
 * once (each is buffered until parsed), and how many streams one key holds open. A slot is
 * freed when the response's connection closes, however the request ended.
 */
export function registerConnectionCaps(app: FastifyInstance, context: Pick<AppContext, 'requestLog' | 'clock' | 'metrics'>, limits: HttpLimits): void {
  let largeUploads = 0;
  const streamsByKey = new Map<string, number>();

  // onRequest: before a byte of the body is read. Callback hooks (here and below): a request
  // under both caps goes on at once, without an async hook's promise.
  app.addHook('onRequest', (request, reply, done) => {
    const length = Number(request.headers['content-length'] ?? 0);
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (!(length > limits.largeUploadBytes || (chunked && request.method !== 'GET'))) return done();
    if (largeUploads >= limits.maxLargeUploads) {
      throw new GatewayError('service_unavailable', `Too many large uploads in progress (limit ${limits.maxLargeUploads}): retry in a few seconds`, {
        headers: { 'retry-after': '2', connection: 'close' },
      });
    }
    largeUploads += 1;
    onClose(reply, () => {
      largeUploads -= 1;
    });
    done();
  });

  // preHandler: the key is known and the body parsed, so `stream: true` can be read.
  app.addHook('preHandler', (request, reply, done) => {
    const principal = request.principal;
    const keyId = principal?.keyId;
    const body = request.body as { stream?: unknown } | undefined;
    if (!principal || !keyId || typeof body !== 'object' || body === null || body.stream !== true) return done();
    const open = streamsByKey.get(keyId) ?? 0;
    if (open >= limits.maxStreamsPerKey) {
      const refusal = new GatewayError('rate_limited', `This key has ${open} streams open, the most allowed at once: close some before opening more`, {
        headers: { 'retry-after': '1' },
        metadata: { limit_type: 'open_streams' },
      });
      // A generation request refused before its route ran still gets its request-log row (`refused`).
      const endpoint = (request.routeOptions.url ?? request.url).replace(/^\/v1/, '');
      const recorded = startRequestRecord(context, { requestId: request.id, principal, endpoint, body: body as Record<string, unknown> }).failed(refusal);
      recorded.then(() => done(refusal), done);
      return;
    }
    streamsByKey.set(keyId, open + 1);
    onClose(reply, () => {
      const left = (streamsByKey.get(keyId) ?? 1) - 1;
      if (left <= 0) streamsByKey.delete(keyId);
      else streamsByKey.set(keyId, left);
    });
    done();
  });
}

function onClose(reply: FastifyReply, release: () => void): void {
  let released = false;
  const once = () => {
    if (released) return;
    released = true;
    release();
  };
  reply.raw.once('close', once);
  reply.raw.once('finish', once);
}
