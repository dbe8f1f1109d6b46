import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { errorStyleOf } from '../errors/error-style-of.js';
import { renderError } from '../errors/render-error.js';

interface NodeClientError extends Error {
  code?: string;
  /** The bytes being parsed when Node's parser failed, a Buffer (absent on timeouts; Fastify's type says a JSON'd one). */
  rawPacket?: unknown;
}

/** Node's parser and timeout errors (below Fastify's router) → the spec's error, by Node code. */
export function clientErrorOf(error: NodeClientError): GatewayError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError('request_timeout', 'The request was not received in time: send headers and body without pauses, within the documented timeouts');
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError('headers_too_large', 'Request headers are larger than the limit (16 KB): send fewer or shorter headers');
    case 'HPE_URI_TOO_LONG':
      return new GatewayError('uri_too_long', 'Request URL is too long');
    default:
      return new GatewayError('invalid_request', 'Malformed HTTP request: check the request line, headers and body framing (URLs must be percent-encoded ASCII)');
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (or that timed out) never
 * reaches a route, so the answer is written to the raw socket here: the JSON envelope with a
 * fresh request id in the body and in `x-request-id`, then the connection is closed.
 */
export function createClientErrorHandler(createId: (prefix: string) => string, logger: FastifyBaseLogger) {
  return (error: NodeClientError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const gatewayError = clientErrorOf(error);
    const requestId = createId('req');
    // Expected from hostile or broken clients: no stack, and never the bytes they sent.
    logger.info({ reqId: requestId, code: gatewayError.code, nodeCode: error.code }, 'client error');
    const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // A response already under way cannot be replaced by a new status line.
    if (socket.writable && (!response || !response.headersSent)) {
      const { method, url } = response?.req ?? requestLineOf(error.rawPacket);
      const body = JSON.stringify(renderError(gatewayError, requestId, errorStyleOf(method, url, undefined)));
      socket.write(
        `HTTP/1.1 ${gatewayError.status} ${STATUS_CODES[gatewayError.status] ?? 'Error'}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
      );
      socket.end();
      // A client that never reads must not hold the socket open after the answer.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    socket.destroy();
  };
}

/**
 * The method and URL of a request Node could not parse, for the style of its answer: from the
 * request line at the start of the packet that failed (headers too large in one write); unknown
 * when the request line came in an earlier packet, and then the answer is in the envelope.
 */
function requestLineOf(packet: unknown): { method?: string; url?: string } {
  if (!Buffer.isBuffer(packet)) return {};
  const line = /^([A-Z]+) (\S+) HTTP\//.exec(packet.toString('latin1', 0, Math.min(packet.length, 8192)));
  return line ? { method: line[1], url: line[2] } : {};
}
