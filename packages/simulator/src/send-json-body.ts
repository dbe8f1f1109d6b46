import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CutFault } from './faults.js';
import type { RequestScope } from './track-request.js';

/**
 * Sends a non-streaming JSON answer. A cut fault has no stream events to count here, so
 * `after = 0` acts before the headers (disconnect: no response at all; stall: silence) and any
 * other value acts after the headers and half of the body. A malformed body is complete at the
 * HTTP level but is only the first half of the JSON.
 */
export function sendJsonBody(
  response: ServerResponse,
  scope: RequestScope,
  status: number,
  body: string,
  options: { headers: OutgoingHttpHeaders; cut?: CutFault },
): void {
  const { cut } = options;
  const headers: OutgoingHttpHeaders = { ...options.headers, 'content-type': 'application/json' };
  if (!cut || cut.kind === 'error') {
    response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    response.end(body);
    return;
  }
  const half = body.slice(0, Math.floor(body.length / 2));
  if (cut.kind === 'malformed') {
    response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(half) });
    response.end(half);
    return;
  }
  if (cut.after === 0) {
    if (cut.kind === 'disconnect') scope.destroy();
    return;
  }
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  if (cut.kind === 'disconnect') response.write(half, () => scope.destroy());
  else response.write(half);
}
