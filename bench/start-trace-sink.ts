import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP endpoint that accepts trace exports and counts them (the bench's collector). */
export interface TraceSink {
  url: string;
  /** Export requests received and their bytes, so a run shows the spans really left the gateway. */
  received(): { exports: number; bytes: number };
  close(): Promise<void>;
}

export async function startTraceSink(): Promise<TraceSink> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      if (request.url === '/v1/traces') exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ exports, bytes }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
