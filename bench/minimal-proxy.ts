// The practical floor of the benchmark: the least a Node reverse proxy that understands what it
// carries does per request. A raw node:http server reads the request body, parses its JSON and
// serializes it again, sends it to one upstream over an undici Pool with a content-length (not
// chunked), parses the answer's JSON — or, for an event stream, every SSE event's data — and
// serializes it again on the way back. No auth, no routing, no logging, no books.
//
// A gateway must read the body (to route on `model`) and the answer (to read usage), so this is
// the floor its CPU per request is held against. The earlier floor streamed the request body into
// the pool chunked and piped the answer through without reading it: it did less work than any
// gateway can, and yet cost ~4× this one's CPU per request, mostly for the chunked upload.
//
//   node --import tsx bench/minimal-proxy.ts --upstream http://127.0.0.1:9090 [--port 8081] [--connections 256]
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool, type Dispatcher } from 'undici';

/** RFC 9110 §7.6.1 connection-specific fields, plus host (the pool sets its own) and the length (re-counted). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);

export interface MinimalProxy {
  url: string;
  close(): Promise<void>;
}

export interface MinimalProxyOptions {
  upstream: string;
  host?: string;
  port?: number;
  connections?: number;
  /**
   * Not part of the floor (`lower-bound-proxy.ts` uses it): called for each request with a body
   * before its answer is written, with the answer's parsed JSON (a stream: before it ends, with
   * undefined), and waited for.
   */
  beforeAnswer?: BeforeAnswer;
}

export type BeforeAnswer = (answer: unknown, streamed: boolean) => Promise<void>;

export async function startMinimalProxy(options: MinimalProxyOptions): Promise<MinimalProxy> {
  const pool = new Pool(options.upstream, { connections: options.connections ?? 256, keepAliveTimeout: 60_000 });
  const server = createServer((request, response) => void forward(pool, request, response, options.beforeAnswer));
  server.keepAliveTimeout = 60_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

async function forward(pool: Pool, request: IncomingMessage, response: ServerResponse, beforeAnswer: BeforeAnswer | undefined): Promise<void> {
  const method = (request.method ?? 'GET') as Dispatcher.HttpMethod;
  try {
    let body: string | null = null;
    if (method !== 'GET' && method !== 'HEAD') {
      const raw = await readBody(request);
      body = raw.length === 0 ? '' : JSON.stringify(JSON.parse(raw.toString('utf8')));
    }
    const headers = withoutHopByHop(request.headers);
    if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
    const upstream = await pool.request({ method, path: request.url ?? '/', headers, body });
    const answerHeaders = withoutHopByHop(upstream.headers);
    const contentType = String(upstream.headers['content-type'] ?? '');
    if (contentType.startsWith('text/event-stream')) {
      response.writeHead(upstream.statusCode, answerHeaders);
      await relayEvents(upstream.body, response);
      if (beforeAnswer && body !== null) await beforeAnswer(undefined, true);
      response.end();
      return;
    }
    const text = await upstream.body.text();
    const json = contentType.includes('json') && text !== '';
    const parsed: unknown = json ? JSON.parse(text) : undefined;
    if (beforeAnswer && body !== null) await beforeAnswer(parsed, false);
    const answer = json ? JSON.stringify(parsed) : text;
    answerHeaders['content-length'] = String(Buffer.byteLength(answer));
    response.writeHead(upstream.statusCode, answerHeaders);
    response.end(answer);
  } catch (error) {
    if (response.headersSent) {
      response.destroy(error as Error);
    } else {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `upstream failed: ${(error as Error).message}` } }));
    }
  }
}

/** Splits the stream into SSE events (blank-line separated), parses each `data:` JSON and writes it again. */
export async function relayEvents(body: AsyncIterable<Buffer>, response: ServerResponse): Promise<void> {
  let pending = '';
  for await (const chunk of body) {
    pending += chunk.toString('utf8');
    let end = pending.indexOf('\n\n');
    let out = '';
    while (end !== -1) {
      out += relayEvent(pending.slice(0, end));
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
    }
    if (out !== '' && !response.write(out)) await new Promise((resolve) => response.once('drain', resolve));
  }
  if (pending.trim() !== '') response.write(relayEvent(pending));
}

function relayEvent(event: string): string {
  let out = '';
  for (const line of event.split('\n')) {
    if (line.startsWith('data:')) {
      const data = line.slice(line[5] === ' ' ? 6 : 5);
      out += data === '[DONE]' ? 'data: [DONE]\n' : `data: ${JSON.stringify(JSON.parse(data))}\n`;
    } else if (line !== '') {
      out += `${line}\n`;
    }
  }
  return `${out}\n`;
}

export function withoutHopByHop(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/** The options both proxy commands take (this one and `lower-bound-proxy.ts`). */
export const proxyCliOptions = {
  upstream: { type: 'string' },
  port: { type: 'string', default: '0' },
  host: { type: 'string', default: '127.0.0.1' },
  connections: { type: 'string', default: '256' },
} as const;

/** The parsed common options as `MinimalProxyOptions`. */
export function proxyOptionsFrom(values: { upstream?: string; port: string; host: string; connections: string }): MinimalProxyOptions {
  if (!values.upstream) throw new Error('--upstream URL is required');
  return { upstream: values.upstream, host: values.host, port: Number(values.port), connections: Number(values.connections) };
}

/**
 * Serves until SIGTERM or SIGINT, or until the benchmark that started the command with an IPC
 * channel goes away (even when it was killed); then `stop` closes the proxy and the process exits.
 */
export function exitOnStop(stop: () => Promise<void>): void {
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', exit);
  process.once('SIGINT', exit);
  if (process.send) process.once('disconnect', exit);
}

async function runFromCli(): Promise<void> {
  const { values } = parseArgs({ options: proxyCliOptions });
  const proxy = await startMinimalProxy(proxyOptionsFrom(values));
  process.stdout.write(`minimal proxy listening on ${proxy.url}\n`);
  exitOnStop(() => proxy.close());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runFromCli().catch((error: unknown) => {
    process.stderr.write(`minimal proxy: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
