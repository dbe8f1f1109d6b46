import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebSearchBackend } from '../../src/config/types.js';

const fixture = (name: string) => readFileSync(new URL(`../../src/hosted-tools/__fixtures__/${name}`, import.meta.url), 'utf8');

/** Each backend's documented route and authentication, and the recorded answer it serves (see the fixtures' SOURCES.md). */
const routes: Record<WebSearchBackend, { method: string; path: string; authorized(request: IncomingMessage): boolean; body: string }> = {
  searxng: { method: 'GET', path: '/search', authorized: () => true, body: fixture('searxng-search.json') },
  brave: { method: 'GET', path: '/res/v1/web/search', authorized: (request) => request.headers['x-subscription-token'] === 'test-search-key', body: fixture('brave-web-search.json') },
  tavily: { method: 'POST', path: '/search', authorized: (request) => request.headers.authorization === 'Bearer test-search-key', body: fixture('tavily-search.json') },
  exa: { method: 'POST', path: '/search', authorized: (request) => request.headers['x-api-key'] === 'test-search-key', body: fixture('exa-search.json') },
};

export interface RecordedSearch {
  method: string;
  url: URL;
  body: unknown;
  /** When the gateway closed the connection of a search left hanging (`performance.now()`). */
  closedAt?: number;
}

export interface FakeSearchBackend {
  /** The `base_url` to configure: the instance (SearXNG) or the API root. */
  baseUrl: string;
  searches: RecordedSearch[];
  /** `ok` serves the recorded answer; `down` answers 503; `hang` never answers (a timeout); `hold` answers at `release()`. */
  mode: 'ok' | 'down' | 'hang' | 'hold';
  /** Serves the recorded answer to the searches `hold` kept waiting. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A local server speaking one search backend's real API: its path, method and authentication,
 * SearXNG's `format=json` check, and its documented answer. Never the internet.
 */
export async function startFakeSearchBackend(backend: WebSearchBackend): Promise<FakeSearchBackend> {
  const route = routes[backend];
  const hanging = new Set<() => void>();
  const held: Array<() => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      if (request.method !== route.method || url.pathname !== route.path) return void response.writeHead(404).end();
      if (!route.authorized(request)) return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      // SearXNG answers 403 to a format its settings do not enable; json must be asked for.
      if (backend === 'searxng' && url.searchParams.get('format') !== 'json') return void response.writeHead(403).end();
      const search: RecordedSearch = { method: request.method, url, body: text === '' ? undefined : JSON.parse(text) };
      fake.searches.push(search);
      if (fake.mode === 'down') return void response.writeHead(503, { 'content-type': 'text/plain' }).end('service unavailable');
      if (fake.mode === 'hang' || fake.mode === 'hold') {
        request.socket.once('close', () => (search.closedAt = performance.now()));
        if (fake.mode === 'hold') return void held.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end(route.body));
        return void hanging.add(() => response.destroy());
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(route.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  const fake: FakeSearchBackend = {
    baseUrl: backend === 'brave' ? `${root}/res/v1` : root,
    searches: [],
    mode: 'ok',
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
