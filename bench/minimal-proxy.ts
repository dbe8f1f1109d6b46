// The practical floor of the benchmark: the least a Node reverse proxy can do per request.
// A raw node:http server forwards method, path, headers and the body stream to one upstream
// over an undici Pool and streams the answer back. No parsing, no auth, no logging.
//
//   node --import tsx bench/minimal-proxy.ts --upstream http://127.0.0.1:9090 [--port 8081]
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool, type Dispatcher } from 'undici';

/** RFC 9110 §7.6.1 connection-specific fields, plus host (the pool sets its own). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

export interface MinimalProxy {
  url: string;
  close(): Promise<void>;
}

export interface MinimalProxyOptions {
  upstream: string;
  host?: string;
  port?: number;
  connections?: number;
}

export async function startMinimalProxy(options: MinimalProxyOptions): Promise<MinimalProxy> {
  const pool = new Pool(options.upstream, { connections: options.connections ?? 256, keepAliveTimeout: 60_000 });
  const server = createServer((request, response) => void forward(pool, request, response));
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

async function forward(pool: Pool, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = (request.method ?? 'GET') as Dispatcher.HttpMethod;
  try {
    const upstream = await pool.request({
      method,
      path: request.url ?? '/',
      headers: withoutHopByHop(request.headers),
      body: method === 'GET' || method === 'HEAD' ? null : request,
    });
    response.writeHead(upstream.statusCode, withoutHopByHop(upstream.headers));
    await pipeline(upstream.body, response);
  } catch (error) {
    if (response.headersSent) {
      response.destroy(error as Error);
    } else {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `upstream failed: ${(error as Error).message}` } }));
    }
  }
}

function withoutHopByHop(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

async function runFromCli(): Promise<void> {
  const { values } = parseArgs({
    options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } },
  });
  if (!values.upstream) throw new Error('--upstream URL is required');
  const proxy = await startMinimalProxy({ upstream: values.upstream, host: values.host, port: Number(values.port) });
  process.stdout.write(`minimal proxy listening on ${proxy.url}\n`);
  const stop = () => void proxy.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Started by the benchmark with an IPC channel: leave with it, even when it was killed.
  if (process.send) process.once('disconnect', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runFromCli().catch((error: unknown) => {
    process.stderr.write(`minimal proxy: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
