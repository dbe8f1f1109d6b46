import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * A small load balancer in front of gateway instances, behaving as the deployment guide asks a
 * real one to: it polls each instance's `GET /ready` and sends new requests only to instances
 * whose last answer was 200 (round robin among them), over kept-alive connections. It never
 * retries: a POST that fails on the way (reset, refused, cut body) reaches the client as the
 * failure it was, so every gateway-side fault is visible in the client's count.
 */
export interface ReadyBalancer {
  url: string;
  /** Per instance: requests sent to it, and the failures the balancer itself saw on the way. */
  stats(): Array<{ origin: string; forwarded: number; failed: number }>;
  /** What went wrong between the balancer and an instance, in order, with ms since the balancer started. */
  failures: string[];
  close(): Promise<void>;
}

interface Backend {
  origin: string;
  pool: Pool;
  ready: boolean;
  /** Consecutive checks with the same outcome, counting towards `fall` or `rise`. */
  streak: number;
  forwarded: number;
  failed: number;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) stay on their own connection. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

export interface HealthCheckOptions {
  /** Between the end of one check of an instance and the next. Default 250 ms. */
  intervalMs?: number;
  /** A check not answered within this long failed. Default 2 s. */
  timeoutMs?: number;
  /** Consecutive failed checks that take an instance out of rotation. Default 2. */
  fall?: number;
  /** Consecutive passed checks that put it back. Default 1. */
  rise?: number;
}

export async function startReadyBalancer(origins: string[], options: HealthCheckOptions = {}): Promise<ReadyBalancer> {
  const { intervalMs = 250, timeoutMs = 2000, fall = 2, rise = 1 } = options;
  const backends: Backend[] = origins.map((origin) => ({
    origin,
    // Kept-alive connections to the instances, as a proxy keeps an upstream pool.
    pool: new Pool(origin, { connections: 128, keepAliveTimeout: 4_000, headersTimeout: 30_000, bodyTimeout: 30_000 }),
    ready: false,
    streak: 0,
    forwarded: 0,
    failed: 0,
  }));
  const failures: string[] = [];
  const started = Date.now();
  let next = 0;
  let closed = false;

  // Health checks on connections of their own, as a balancer's checker does (HAProxy's
  // `inter`/`fall`/`rise`, an ALB's interval and thresholds): an instance leaves the rotation
  // after `fall` failed checks in a row and comes back after `rise` passed ones, so that one slow
  // check on a busy machine does not take a healthy instance out.
  const check = async (backend: Backend) => {
    const passed = await fetch(`${backend.origin}/ready`, { signal: AbortSignal.timeout(timeoutMs) }).then(
      (response) => response.arrayBuffer().then(() => response.status === 200),
      () => false,
    );
    if (passed === backend.ready) backend.streak = 0;
    else if (++backend.streak >= (passed ? rise : fall)) {
      backend.ready = passed;
      backend.streak = 0;
    }
  };
  const poll = async (backend: Backend) => {
    while (!closed) {
      await check(backend);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  const polling = Promise.all(backends.map(poll));

  const pick = (): Backend | undefined => {
    for (let offset = 0; offset < backends.length; offset += 1) {
      const backend = backends[(next + offset) % backends.length];
      if (backend.ready) {
        next = (next + offset + 1) % backends.length;
        return backend;
      }
    }
    return undefined;
  };

  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const backend = pick();
    if (!backend) {
      failures.push(`${Date.now() - started} ms: no ready instance for ${request.method} ${request.url}`);
      response.writeHead(503, { 'content-type': 'text/plain' }).end('no ready instance');
      return;
    }
    backend.forwarded += 1;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    let answering = false;
    try {
      const upstream = await backend.pool.request({ method: request.method as 'POST', path: request.url!, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
      const answerHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      response.writeHead(upstream.statusCode, answerHeaders);
      answering = true;
      for await (const chunk of upstream.body) response.write(chunk);
      response.end();
    } catch (error) {
      backend.failed += 1;
      failures.push(`${Date.now() - started} ms: ${backend.origin} ${request.method} ${request.url}: ${(error as Error).message}${answering ? ' (after the headers)' : ''}`);
      // A proxy that lost its upstream mid-answer can only cut the client's answer too.
      if (answering) response.destroy();
      else response.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream failed: ${(error as Error).message}`);
    }
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    forward(request, response).catch((error: unknown) => {
      failures.push(`balancer: ${(error as Error).message}`);
      response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Wait for the first round of checks, so that the first requests find a ready instance.
  for (let attempt = 0; attempt < 600 && !backends.some((backend) => backend.ready); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failures,
    stats: () => backends.map(({ origin, forwarded, failed }) => ({ origin, forwarded, failed })),
    async close() {
      closed = true;
      await polling;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(backends.map((backend) => backend.pool.destroy()));
    },
  };
}
