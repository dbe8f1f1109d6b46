import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testCertificate, testPrivateKey } from './__fixtures__/test-certificate.js';
import { fetchPublicUrl, FetchRefusedError, type FetchPublicUrlOptions, type ResolvedAddress } from './fetch-public-url.js';

/**
 * A local HTTPS server stands in for the internet. Tests resolve names themselves: `images.test`
 * and `*.images.test` point at the server on 127.0.0.1, which a widened policy treats as public
 * only where a test says so. Everything else runs through the real address policy.
 */
let server: Server;
let port: number;
let requests: string[] = [];

beforeAll(async () => {
  server = createServer({ cert: testCertificate, key: testPrivateKey }, (request, response) => {
    requests.push(`${request.headers.host}${request.url}`);
    const url = new URL(request.url ?? '/', 'https://images.test');
    switch (url.pathname) {
      case '/cat.png':
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('png-bytes'));
        return;
      case '/redirect':
        response.writeHead(302, { location: url.searchParams.get('to') ?? '/cat.png' }).end();
        return;
      case '/loop':
        response.writeHead(301, { location: '/loop' }).end();
        return;
      case '/big':
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': '5000' }).end(Buffer.alloc(5000));
        return;
      case '/big-chunked':
        response.writeHead(200, { 'content-type': 'image/png' });
        for (let index = 0; index < 10; index += 1) response.write(Buffer.alloc(1000));
        response.end();
        return;
      case '/page':
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        return;
      case '/slow':
        setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end('late'), 2000).unref();
        return;
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A resolver with a fixed table; records every question. */
function resolverOf(table: Record<string, ResolvedAddress[] | (() => ResolvedAddress[])>) {
  const resolve = vi.fn(async (hostname: string) => {
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  });
  return resolve;
}

const loopback: ResolvedAddress = { address: '127.0.0.1', family: 4 };
/** Only the test server's loopback address counts as "public" here; the real policy for the rest. */
const testPolicy = (address: string) => address === '127.0.0.1';

function options(overrides: Partial<FetchPublicUrlOptions> = {}): FetchPublicUrlOptions {
  return {
    maxBytes: 4096,
    timeoutMs: 3000,
    ca: testCertificate,
    isAllowedAddress: testPolicy,
    resolve: resolverOf({ 'images.test': [loopback], 'cdn.images.test': [loopback] }),
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}

describe('fetchPublicUrl', () => {
  it('fetches an https URL through the checked address', async () => {
    const file = await fetchPublicUrl(`https://images.test:${port}/cat.png`, options());
    expect(file.bytes.toString()).toBe('png-bytes');
    expect(file.contentType).toBe('image/png');
  });

  it('refuses plain http, other schemes and credentials without connecting', async () => {
    requests = [];
    expect((await refusal(fetchPublicUrl(`http://images.test:${port}/cat.png`, options()))).reason).toBe('scheme');
    expect((await refusal(fetchPublicUrl('file:///etc/passwd', options()))).reason).toBe('scheme');
    expect((await refusal(fetchPublicUrl('ftp://images.test/cat.png', options()))).reason).toBe('scheme');
    expect((await refusal(fetchPublicUrl(`https://user:secret@images.test:${port}/cat.png`, options()))).reason).toBe('invalid_url');
    expect((await refusal(fetchPublicUrl('not a url', options()))).reason).toBe('invalid_url');
    expect(requests).toEqual([]);
  });

  describe('with the real address policy', () => {
    const real = (resolve: FetchPublicUrlOptions['resolve']) => options({ isAllowedAddress: undefined, resolve });

    it.each([
      ['loopback', '127.0.0.1', 4],
      ['private 10/8', '10.0.0.8', 4],
      ['private 192.168/16', '192.168.0.10', 4],
      ['private 172.16/12', '172.20.1.1', 4],
      ['link-local metadata', '169.254.169.254', 4],
      ['IPv6 loopback', '::1', 6],
      ['IPv6 link-local', 'fe80::1', 6],
      ['IPv6 unique-local', 'fd00::5', 6],
      ['IPv4-mapped loopback', '::ffff:127.0.0.1', 6],
    ] as const)('refuses a host that resolves to a %s address', async (_name, address, family) => {
      const error = await refusal(fetchPublicUrl(`https://evil.example:${port}/cat.png`, real(resolverOf({ 'evil.example': [{ address, family }] }))));
      expect(error.reason).toBe('address');
      expect(error.message).not.toContain(address);
    });

    it.each([
      'https://127.0.0.1/cat.png',
      'https://10.1.2.3/cat.png',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/cat.png',
      'https://[fe80::1]/cat.png',
      'https://[::ffff:127.0.0.1]/cat.png',
      'https://[::ffff:a9fe:a9fe]/cat.png',
      'https://2130706433/cat.png',
      'https://0x7f.0.0.1/cat.png',
      'https://0177.0.0.1/cat.png',
      'https://127.1/cat.png',
      'https://0.0.0.0/cat.png',
    ])('refuses the literal address in %s without resolving', async (url) => {
      const resolve = resolverOf({});
      expect((await refusal(fetchPublicUrl(url, real(resolve)))).reason).toBe('address');
      expect(resolve).not.toHaveBeenCalled();
    });

    it('refuses a host when any of its addresses is special, not only the first', async () => {
      const resolve = resolverOf({ 'mixed.example': [{ address: '93.184.216.34', family: 4 }, loopback] });
      expect((await refusal(fetchPublicUrl('https://mixed.example/cat.png', real(resolve)))).reason).toBe('address');
    });

    it('refuses localhost by its resolution', async () => {
      const resolve = resolverOf({ localhost: [loopback, { address: '::1', family: 6 }] });
      expect((await refusal(fetchPublicUrl(`https://localhost:${port}/cat.png`, real(resolve)))).reason).toBe('address');
    });

    it('reports an unknown host as a DNS failure', async () => {
      expect((await refusal(fetchPublicUrl('https://nowhere.example/cat.png', real(resolverOf({}))))).reason).toBe('dns');
    });
  });

  it('checks every redirect hop again and refuses one that leads to a private address', async () => {
    requests = [];
    const resolve = resolverOf({ 'images.test': [loopback], 'internal.example': [{ address: '10.0.0.5', family: 4 }] });
    const target = encodeURIComponent('https://internal.example/admin');
    const error = await refusal(fetchPublicUrl(`https://images.test:${port}/redirect?to=${target}`, options({ resolve })));
    expect(error.reason).toBe('address');
    expect(resolve).toHaveBeenCalledWith('internal.example');
    expect(requests).toHaveLength(1);
  });

  it('refuses a redirect to a loopback literal and to plain http', async () => {
    const toLoopback = encodeURIComponent(`https://127.0.0.2:${port}/cat.png`);
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/redirect?to=${toLoopback}`, options()))).reason).toBe('address');
    const toHttp = encodeURIComponent(`http://images.test:${port}/cat.png`);
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/redirect?to=${toHttp}`, options()))).reason).toBe('scheme');
  });

  it('follows a redirect to another allowed host', async () => {
    const next = encodeURIComponent(`https://cdn.images.test:${port}/cat.png`);
    const file = await fetchPublicUrl(`https://images.test:${port}/redirect?to=${next}`, options());
    expect(file.bytes.toString()).toBe('png-bytes');
    expect(file.url).toBe(`https://cdn.images.test:${port}/cat.png`);
  });

  it('stops after the redirect limit', async () => {
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/loop`, options({ maxRedirects: 2 })))).reason).toBe('redirect');
  });

  it('pins the connection to the checked address: a rebinding second answer is never asked for or used', async () => {
    // The first answer is the (allowed) test server; any later answer would be the metadata service.
    let calls = 0;
    const resolve = vi.fn(async () => (calls++ === 0 ? [loopback] : [{ address: '169.254.169.254', family: 4 as const }]));
    const file = await fetchPublicUrl(`https://rebind.images.test:${port}/cat.png`, options({ resolve }));
    expect(file.bytes.toString()).toBe('png-bytes');
    expect(resolve).toHaveBeenCalledTimes(1);
  });

  it('re-resolves on each redirect hop, so a rebinding answer on the second hop is refused', async () => {
    let calls = 0;
    const resolve = vi.fn(async () => (calls++ === 0 ? [loopback] : [{ address: '169.254.169.254', family: 4 as const }]));
    const again = encodeURIComponent(`https://images.test:${port}/cat.png`);
    const error = await refusal(fetchPublicUrl(`https://images.test:${port}/redirect?to=${again}`, options({ resolve })));
    expect(error.reason).toBe('address');
    expect(resolve).toHaveBeenCalledTimes(2);
  });

  it('bounds the size by Content-Length and while reading', async () => {
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/big`, options({ maxBytes: 1000 })))).reason).toBe('size');
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/big-chunked`, options({ maxBytes: 2500 })))).reason).toBe('size');
    const file = await fetchPublicUrl(`https://images.test:${port}/big-chunked`, options({ maxBytes: 20_000 }));
    expect(file.bytes).toHaveLength(10_000);
  });

  it('bounds the time', async () => {
    const started = Date.now();
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/slow`, options({ timeoutMs: 300 })))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('checks the content type and the status', async () => {
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/page`, options({ contentTypes: ['image/'] })))).reason).toBe('content_type');
    expect((await refusal(fetchPublicUrl(`https://images.test:${port}/missing.png`, options()))).reason).toBe('status');
  });

  it('verifies the certificate against the host name (no pinning shortcut around TLS)', async () => {
    const resolve = resolverOf({ 'other.example': [loopback] });
    expect((await refusal(fetchPublicUrl(`https://other.example:${port}/cat.png`, options({ resolve })))).reason).toBe('network');
  });

  it('does not speak TLS-less to a plain HTTP server even on an allowed address', async () => {
    const plain = createHttpServer((_request, response) => response.end('plain'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const plainPort = (plain.address() as AddressInfo).port;
    try {
      expect((await refusal(fetchPublicUrl(`https://images.test:${plainPort}/cat.png`, options()))).reason).toBe('network');
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
