import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUndocumentedRoute } from '../../src/http/register-openapi.js';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

let gateway: TestApp;
let document: { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown; tags?: string[] }>> };

beforeAll(async () => {
  gateway = await startTestApp();
  const response = await gateway.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  document = response.json();
});
afterAll(() => gateway.close());

/** Fastify's `/v1/keys/:key_id` → OpenAPI's `/v1/keys/{key_id}`. */
// A wildcard (Gemini's `models/*`, a model id with its `/` and an action) is documented as `{*}`.
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{*}');

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, by a validator that does refuse a broken one', async () => {
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    broken.paths['/v1/credits']!.get!.responses = 'none';
    expect((await new Validator().validate(broken as unknown as Parameters<Validator['validate']>[0])).valid).toBe(false);
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route the server registered, but the page, its assets and the webhook', () => {
    const missing: string[] = [];
    const routes = gateway.app.declaredRoutes.filter((route) => route.method !== 'HEAD' && !isUndocumentedRoute(route.url));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      if (!document.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()]) missing.push(`${route.method} ${route.url}`);
    }
    expect(missing).toEqual([]);
    expect(Object.keys(document.paths).filter((path) => path === '/' || path.startsWith('/app') || path.startsWith('/webhooks'))).toEqual([]);
  });

  it('says how each route authenticates and shows examples on the main routes', () => {
    expect(document.paths['/v1/keys']?.post?.security).toEqual([{ bearerKey: [] }, { xApiKey: [] }, { sessionCookie: [] }]);
    // Paid endpoints take keys only: a page session cannot spend.
    expect(document.paths['/v1/chat/completions']?.post?.security).toEqual([{ bearerKey: [] }, { xApiKey: [] }]);
    expect(document.paths['/auth/email/start']?.post?.tags).toEqual(['sign-in']);
    expect(document.paths['/admin/accounts']?.post?.security).toEqual([{ adminToken: [] }]);
    expect(document.paths['/health']?.get?.security).toBeUndefined();
    const chat = document.paths['/v1/chat/completions']?.post?.requestBody as { content: { 'application/json': { example: unknown } } };
    expect(chat.content['application/json'].example).toMatchObject({ model: expect.any(String), messages: expect.any(Array) });
    expect(document.paths['/v1/messages']?.post?.tags).toEqual(['generation']);
  });
});
