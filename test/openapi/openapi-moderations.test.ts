import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';

let gateway: TestApp;
let document: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> }; security?: unknown; tags?: string[] }>> };

beforeAll(async () => {
  gateway = await startTestApp();
  document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(() => gateway.close());

describe('the OpenAPI document of POST /v1/moderations', () => {
  it('lists the route as a paid, key-only generation call with its example', () => {
    const moderations = document.paths['/v1/moderations']?.post;
    expect(moderations?.tags).toEqual(['generation']);
    expect(moderations?.security).toEqual([{ bearerKey: [] }, { xApiKey: [] }]);
    expect(moderations?.requestBody?.content['application/json'].example).toMatchObject({ model: 'openai/omni-moderation-latest', input: expect.any(Array) });
  });
});
