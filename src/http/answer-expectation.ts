import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { errorStyleOf } from '../errors/error-style-of.js';
import { renderError } from '../errors/render-error.js';

/**
 * Node answers an `Expect` header other than `100-continue` itself (417, no body) unless the
 * server listens for `checkExpectation`: this listener gives that answer the envelope and a
 * request id like every other error.
 */
export function createExpectationHandler(createId: (prefix: string) => string, logger: FastifyBaseLogger) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const requestId = createId('req');
    const error = new GatewayError('expectation_failed', `Unsupported Expect header: only '100-continue' is supported`);
    logger.info({ reqId: requestId, code: error.code }, 'client error');
    request.resume();
    const body = JSON.stringify(renderError(error, requestId, errorStyleOf(request.method, request.url, undefined)));
    response.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-request-id': requestId, connection: 'close' });
    response.end(body);
  };
}
