import type { Socket } from 'node:net';

/** How long a refused client may go on sending before its connection is cut. */
export const lingerMs = 2_000;

/**
 * A refusal sent while the client is still sending its body (413, or any answer with
 * `Connection: close` before the body was read) must reach the client. Node closes such a
 * connection as soon as the answer is written; the client's next bytes then meet a reset, and
 * a reset makes the client's system drop the answer it has not read yet (most clients read only
 * once they have sent the whole body). Instead, the answer is followed by our half of the close
 * (FIN) while the rest of the body is still read and discarded, until the client closes its half
 * or `lingerMs` passes: the "lingering close" of RFC 9112 §9.6.
 */
export function lingerBeforeClose(socket: Socket): void {
  if (socket.destroyed) return;
  // Node ends a `Connection: close` response with `socket.destroySoon()`; this replaces it.
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    const cut = setTimeout(() => socket.destroy(), lingerMs);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
    // The HTTP parser discards the rest of the body; once the client has sent it and closed
    // its half, the socket closes by itself.
    socket.resume();
  };
}
