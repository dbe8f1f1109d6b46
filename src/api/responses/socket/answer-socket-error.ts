import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';

interface SocketError extends Error {
  code?: string;
}

/** Transport errors of a client that went away mid-write: its own doing, as on HTTP. */
const clientTransportCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * `@fastify/websocket`'s `errorHandler`, for errors emitted on an open socket. A frame that breaks
 * RFC 6455 (unmasked, a reserved opcode or RSV bit, invalid UTF-8, a length past the message
 * limit, an oversized or fragmented control frame) is a client's mistake, the twin of an HTTP
 * request Node cannot parse: an info line with `ws`'s error code and no stack (the plugin's
 * default logs it at error level with its stack, so anyone could page the operator with a
 * 14-byte frame). `ws` has already sent the close frame with the matching code (1002, 1007,
 * 1009), so the socket is left to finish its closing handshake. Anything else is ours: error
 * level, and the socket is cut.
 */
export function answerSocketError(error: SocketError, socket: WebSocket, request: FastifyRequest): void {
  const code = error.code ?? '';
  if (code.startsWith('WS_ERR_')) {
    request.log.info({ code }, 'websocket protocol error');
    return;
  }
  if (clientTransportCodes.has(code)) request.log.info({ code }, 'websocket connection lost');
  else request.log.error({ err: error }, 'websocket failed');
  socket.terminate();
}
