// The floor (`minimal-proxy.ts`) with, optionally, the two costs of the gateway that issue 23 keeps
// on and that no trimming of the gateway's own steps can remove: the framework the project is
// built on (Fastify, `--fastify`) and the money path's commit (`--books FILE`: every POST's answer
// waits until its settlement and request-log row are committed, group-committed by the gateway's
// own `RequestLog` and SQLite books writer, out of one instance lease, as the gateway's settlements
// are). No auth, no routing, no reservation, no validation, no translation, no log line, no
// metrics. What this proxy costs per request is therefore a lower bound of the gateway's cost
// per request, for judging the hot-path goals against (`measure-lower-bound.ts`).
//
//   node --import tsx bench/investigations/lower-bound-proxy.ts --upstream http://127.0.0.1:9090 [--port 8081] [--fastify] [--books FILE]
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import pino from 'pino';
import { Pool, type Dispatcher } from 'undici';
import { RequestLog, type RequestLogStats } from '../../src/billing/request-log.js';
import { createId } from '../../src/core/ids.js';
import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { seedLeaseBooks, type LeaseBooks } from './lease-books.js';
import { exitOnStop, proxyCliOptions, proxyOptionsFrom, relayEvents, startMinimalProxy, withoutHopByHop, type BeforeAnswer } from '../minimal-proxy.js';

export interface LowerBoundOptions {
  upstream: string;
  host?: string;
  port?: number;
  connections?: number;
  /** Serve through Fastify (its router, JSON body parser and serializer) instead of bare node:http. */
  fastify?: boolean;
  /** A SQLite file for the books; absent: no books. */
  books?: string;
}

export interface LowerBoundProxy {
  url: string;
  /** The store of the books (for checking them), when there are books. */
  store: Store | undefined;
  /** The books writer's counts (rows written, batches), when there are books. */
  booksStats(): RequestLogStats | undefined;
  close(): Promise<void>;
}

/** At exit the CLI prints this, then the books writer's counts as JSON (null without books). */
export const BOOKS_STATS_PREFIX = 'books writer: ';

/** What each request is charged, in nano-USD. */
export const LOWER_BOUND_COST = 700n;

interface Books {
  store: Store;
  log: RequestLog;
  lease: LeaseBooks;
}

async function openBooks(path: string): Promise<Books> {
  // As the gateway opens its store (create-context.ts): checkpoints on a background thread.
  const store = await createStore(`sqlite:${path}`, { backgroundCheckpoints: true });
  await migrateToLatest(store);
  const lease = await seedLeaseBooks(store, LOWER_BOUND_COST);
  const log = new RequestLog({ store, logger: pino({ level: 'silent' }), createId });
  return { store, log, lease };
}

/** Resolves once the request's charge and row are committed, as a gateway's answer waits for its settlement. */
async function settle(books: Books, answer: unknown, streamed: boolean): Promise<void> {
  const id = createId('req');
  const usage = (answer as { usage?: { prompt_tokens?: number; completion_tokens?: number } } | undefined)?.usage;
  const record = books.lease.record(id, { promptTokens: usage?.prompt_tokens ?? 12, completionTokens: usage?.completion_tokens ?? 16, streamed });
  await books.log.settle(books.lease.settlement(id, LOWER_BOUND_COST), record);
}

/** Fastify's version of the floor: its JSON body parser and its serializer instead of the floor's own JSON calls. */
async function startFastifyFloor(options: LowerBoundOptions, beforeAnswer: BeforeAnswer | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool(options.upstream, { connections: options.connections ?? 256, keepAliveTimeout: 60_000 });
  const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
  app.route({
    method: ['GET', 'POST'],
    url: '*',
    handler: async (request, reply) => {
      const body = request.body === undefined ? null : JSON.stringify(request.body);
      const headers = withoutHopByHop(request.headers);
      if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
      const upstream = await pool.request({ method: request.method as Dispatcher.HttpMethod, path: request.url, headers, body });
      const answerHeaders = withoutHopByHop(upstream.headers);
      const contentType = String(upstream.headers['content-type'] ?? '');
      if (contentType.startsWith('text/event-stream')) {
        reply.hijack();
        reply.raw.writeHead(upstream.statusCode, answerHeaders);
        await relayEvents(upstream.body, reply.raw);
        if (beforeAnswer && body !== null) await beforeAnswer(undefined, true);
        reply.raw.end();
        return reply;
      }
      const text = await upstream.body.text();
      const parsed: unknown = contentType.includes('json') && text !== '' ? JSON.parse(text) : text;
      if (beforeAnswer && body !== null) await beforeAnswer(parsed, false);
      return reply.code(upstream.statusCode).headers(answerHeaders).send(parsed);
    },
  });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  return {
    url: `http://${host}:${(app.server.address() as AddressInfo).port}`,
    async close() {
      await app.close();
      await pool.close();
    },
  };
}

export async function startLowerBoundProxy(options: LowerBoundOptions): Promise<LowerBoundProxy> {
  const books = options.books === undefined ? undefined : await openBooks(options.books);
  const beforeAnswer: BeforeAnswer | undefined = books && ((answer, streamed) => settle(books, answer, streamed));
  const server = options.fastify ? await startFastifyFloor(options, beforeAnswer) : await startMinimalProxy({ ...options, beforeAnswer });
  return {
    url: server.url,
    store: books?.store,
    booksStats: () => books?.log.stats(),
    async close() {
      await server.close();
      if (books) {
        await books.log.close();
        await books.store.close();
      }
    },
  };
}
async function runFromCli(): Promise<void> {
  const { values } = parseArgs({ options: { ...proxyCliOptions, fastify: { type: 'boolean', default: false }, books: { type: 'string' } } });
  const proxy = await startLowerBoundProxy({ ...proxyOptionsFrom(values), fastify: values.fastify, books: values.books });
  process.stdout.write(`lower-bound proxy listening on ${proxy.url}\n`);
  exitOnStop(async () => {
    try {
      await proxy.close();
    } finally {
      // The books writer's counts, for the driver (`measure-lower-bound.ts` reads the last such line).
      await new Promise<void>((resolve) => process.stdout.write(`${BOOKS_STATS_PREFIX}${JSON.stringify(proxy.booksStats() ?? null)}\n`, () => resolve()));
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runFromCli().catch((error: unknown) => {
    process.stderr.write(`lower-bound proxy: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
