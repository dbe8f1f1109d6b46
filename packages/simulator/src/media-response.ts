import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export function sendMediaJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendBytes(response: ServerResponse, contentType: string, bytes: Buffer, headers: OutgoingHttpHeaders = {}): void {
  response.writeHead(200, { ...headers, 'content-type': contentType, 'content-length': bytes.length });
  response.end(bytes);
}

/** `WIDTHxHEIGHT`, or the fallback when absent, `auto` or malformed; each side bounded for speed. */
export function parseSize(size: unknown, fallback: [number, number] = [1024, 1024]): [number, number] {
  const match = typeof size === 'string' ? /^(\d{1,4})x(\d{1,4})$/.exec(size) : null;
  if (!match) return fallback;
  return [Math.min(4096, Math.max(1, Number(match[1]))), Math.min(4096, Math.max(1, Number(match[2])))];
}
