import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCorsOrigins } from '../../src/config/read-cors-origins.js';
import { buildTestConfig } from '../helpers/test-config.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { startSimulatedGateway } from '../helpers/simulated-gateway.js';

let gateway: TestApp | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

async function start(origins: string[]): Promise<TestApp> {
  const config = buildTestConfig();
  config.server.corsOrigins = origins;
  gateway = await startTestApp({ config });
  return gateway;
}

describe('CORS', () => {
  it('answers a preflight from an allowed origin with the headers SDKs send', async () => {
    const { app } = await start(['https://playground.example']);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/chat/completions',
      headers: { origin: 'https://playground.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-stainless-os' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://playground.example');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');
  });

  it('lets a browser read answers and refusals from an allowed origin, and not from another', async () => {
    const { app } = await start(['https://playground.example']);
    const refused = await app.inject({ method: 'GET', url: '/v1/credits', headers: { origin: 'https://playground.example', authorization: 'Bearer sy_wrong' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('https://playground.example');
    expect(String(refused.headers['access-control-expose-headers'])).toContain('x-request-id');
    const other = await app.inject({ method: 'GET', url: '/v1/models', headers: { origin: 'https://evil.example' } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('exposes every x-switchyard-* header the gateway sets, as the source names them', async () => {
    const source = join(import.meta.dirname, '../../src');
    const names = new Set<string>();
    for (const file of readdirSync(source, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      for (const match of readFileSync(join(source, file), 'utf8').matchAll(/['"`](x-switchyard-[a-z-]+)['"`]/g)) names.add(match[1]);
    }
    expect([...names].sort()).toEqual(expect.arrayContaining(['x-switchyard-cost', 'x-switchyard-omitted', 'x-switchyard-provider', 'x-switchyard-token-count']));
    // Named in the source but never set on an answer: the page's choice of account is a request
    // header (contract §7), and the alert webhook's signature and id go out on the gateway's own
    // requests to the receiver (§8), and a cache entry's lifetime is asked for by the request (§9).
    // Each must still be named where the source says so.
    const notAnswerHeaders = ['x-switchyard-account', 'x-switchyard-alert-id', 'x-switchyard-signature', 'x-switchyard-cache-ttl'];
    expect([...names]).toEqual(expect.arrayContaining(notAnswerHeaders));
    const { app } = await start(['https://playground.example']);
    const answer = await app.inject({ method: 'GET', url: '/v1/models', headers: { origin: 'https://playground.example' } });
    const exposed = String(answer.headers['access-control-expose-headers']).split(/,\s*/);
    for (const name of names) if (!notAnswerHeaders.includes(name)) expect(exposed).toContain(name);
  });

  it('sends no CORS headers when no origin is configured', async () => {
    const { app } = await start([]);
    const answer = await app.inject({ method: 'GET', url: '/v1/models', headers: { origin: 'https://playground.example' } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('reads SWITCHYARD_CORS_ORIGINS and refuses what is not an origin', () => {
    expect(readCorsOrigins({ SWITCHYARD_CORS_ORIGINS: 'https://a.example, http://localhost:5173' })).toEqual(['https://a.example', 'http://localhost:5173']);
    expect(readCorsOrigins({ SWITCHYARD_CORS_ORIGINS: '*' })).toEqual(['*']);
    expect(readCorsOrigins({})).toEqual([]);
    expect(() => readCorsOrigins({ SWITCHYARD_CORS_ORIGINS: 'https://a.example/path' })).toThrow(/without a path/);
  });
});

describe('CORS on answers from the simulated providers', () => {
  it('lets a browser read a streamed answer and the gateway headers of every answer', async () => {
    const simulated = await startSimulatedGateway({ credits: 10, configure: (config) => (config.server.corsOrigins = ['https://playground.example']) });
    try {
      const headers = { origin: 'https://playground.example', authorization: `Bearer ${simulated.key}`, 'content-type': 'application/json' };
      for (const stream of [false, true]) {
        const answer = await fetch(`${simulated.url}/v1/chat/completions`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }], stream }),
        });
        await answer.text();
        expect(answer.status).toBe(200);
        // A streamed answer is written by the gateway itself (the reply is hijacked): without the
        // CORS headers there, a page could not read a single streamed token.
        expect(answer.headers.get('access-control-allow-origin')).toBe('https://playground.example');
        const exposed = String(answer.headers.get('access-control-expose-headers'));
        for (const name of ['x-request-id', 'x-switchyard-provider', 'x-switchyard-omitted', 'x-switchyard-cost']) expect(exposed).toContain(name);
      }
    } finally {
      await simulated.close();
    }
  });
});
