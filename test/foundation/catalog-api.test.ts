import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/start-test-app.js';
import { testDatabases } from '../helpers/test-databases.js';

describe('catalog endpoints', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(async () => test?.close());
  const get = (url: string, headers: Record<string, string> = {}) => test.app.inject({ method: 'GET', url, headers });

  it('lists models in OpenRouter\'s shape with per-token decimal prices', async () => {
    const response = await get('/v1/models');
    expect(response.statusCode).toBe(200);
    const models = response.json().data as any[];
    expect(models.map((model) => model.id)).toEqual(['acme/chat-small', 'acme/chat-small:free', 'other/painter']);
    const small = models[0];
    expect(small).toMatchObject({
      id: 'acme/chat-small',
      canonical_slug: 'acme/chat-small',
      name: 'Acme: Chat Small',
      created: 1700000000,
      description: 'A small test model.',
      context_length: 8192,
      architecture: { modality: 'text+image->text', input_modalities: ['text', 'image'], output_modalities: ['text'], tokenizer: 'GPT' },
      // The cheapest *configured* endpoint: the offline provider (cheaper) has no key.
      pricing: { prompt: '0.00000015', completion: '0.0000006', input_cache_read: '0.000000075', request: '0', image: '0' },
      top_provider: { context_length: 8192, max_completion_tokens: 4096, is_moderated: false },
      per_request_limits: null,
      free: false,
      endpoints: ['chat', 'responses', 'messages'],
    });
    expect(small.supported_parameters).toEqual(expect.arrayContaining(['temperature', 'tools', 'top_k']));
    expect(models[2]).toMatchObject({ endpoints: ['images'], pricing: { image: '0.04' }, free: false });
  });

  it('filters by author, output modality and free, and counts with the same filters', async () => {
    expect((await get('/v1/models?author=other')).json().data.map((model: any) => model.id)).toEqual(['other/painter']);
    expect((await get('/v1/models?output_modalities=image')).json().data).toHaveLength(1);
    expect((await get('/v1/models?output_modalities=text,image')).json().data).toHaveLength(3);
    expect((await get('/v1/models?free=true')).json().data.map((model: any) => model.id)).toEqual(['acme/chat-small:free']);
    expect((await get('/v1/models/count')).json()).toEqual({ data: { count: 3 } });
    expect((await get('/v1/models/count?free=false')).json()).toEqual({ data: { count: 2 } });
    expect((await get('/v1/models?free=maybe')).statusCode).toBe(400);
  });

  it('pages through models when a limit is given', async () => {
    const first = (await get('/v1/models?limit=2')).json();
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toBe('acme/chat-small:free');
    const second = (await get(`/v1/models?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second.data.map((model: any) => model.id)).toEqual(['other/painter']);
    expect(second.next_cursor).toBeNull();
  });

  it('lists model authors with their model counts', async () => {
    expect((await get('/v1/model-authors')).json().data).toEqual([
      { id: 'acme', name: 'Acme', model_count: 2 },
      { id: 'other', name: 'Other', model_count: 1 },
    ]);
  });

  it('shows a model\'s endpoints with parameters, streaming and status; 404 for an unknown model', async () => {
    const response = await get('/v1/models/acme/chat-small/endpoints');
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.id).toBe('acme/chat-small');
    expect(data.endpoints).toHaveLength(3);
    expect(data.endpoints[0]).toMatchObject({
      provider: 'sim',
      provider_name: 'Simulator',
      context_length: 8192,
      max_completion_tokens: 4096,
      pricing: { prompt: '0.00000015', completion: '0.0000006' },
      supported_parameters: ['max_tokens', 'temperature', 'top_p', 'stop', 'seed', 'tools', 'tool_choice', 'response_format'],
      streaming: true,
      status: 'available',
    });
    expect(data.endpoints[2]).toMatchObject({ provider: 'offline', status: 'unavailable' });
    expect((await get('/v1/models/acme/chat-small:free/endpoints')).statusCode).toBe(200);
    const missing = await get('/v1/models/acme/nothing/endpoints');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
  });

  it('is public, but a presented key must be valid', async () => {
    expect((await get('/v1/models', { authorization: 'Bearer sy_wrongwrongwrongwrongwrongwrongwrongwrongwrong' })).statusCode).toBe(401);
  });
});

for (const database of testDatabases()) {
  describe(`default providers on ${database.name}`, () => {
    let test: TestApp;
    let first: { key: string };
    let second: { key: string };
    beforeAll(async () => {
      test = await startTestApp({ databaseUrl: database.url });
      first = await test.createAccount();
      second = await test.createAccount();
    });
    afterAll(async () => test?.close());
    const call = (method: 'GET' | 'PATCH', key: string | undefined, payload?: unknown) =>
      test.app.inject({ method, url: '/v1/providers', headers: key ? { authorization: `Bearer ${key}` } : {}, payload: payload as object });

    it('lists configured provider options per model', async () => {
      const response = await call('GET', first.key);
      expect(response.statusCode).toBe(200);
      const entry = response.json().data.find((row: any) => row.model === 'acme/chat-small');
      expect(entry).toEqual({
        model: 'acme/chat-small',
        default_provider: null,
        providers: [
          { provider: 'sim', provider_name: 'Simulator', pricing: expect.objectContaining({ prompt: '0.00000015' }) },
          { provider: 'sim-anthropic', provider_name: 'Simulator Anthropic', pricing: expect.objectContaining({ prompt: '0.0000002' }) },
        ],
      });
    });

    it('saves a default provider per account, isolated from other accounts, and clears it with null', async () => {
      const saved = await call('PATCH', first.key, { model: 'acme/chat-small', provider: 'sim-anthropic' });
      expect(saved.statusCode).toBe(200);
      expect(saved.json()).toEqual({ data: { model: 'acme/chat-small', default_provider: 'sim-anthropic' } });
      const mine = (await call('GET', first.key)).json().data.find((row: any) => row.model === 'acme/chat-small');
      expect(mine.default_provider).toBe('sim-anthropic');
      const theirs = (await call('GET', second.key)).json().data.find((row: any) => row.model === 'acme/chat-small');
      expect(theirs.default_provider).toBeNull();
      const overwritten = await call('PATCH', first.key, { model: 'acme/chat-small', provider: 'sim' });
      expect(overwritten.json().data.default_provider).toBe('sim');
      const cleared = await call('PATCH', first.key, { model: 'acme/chat-small', provider: null });
      expect(cleared.json()).toEqual({ data: { model: 'acme/chat-small', default_provider: null } });
      expect((await call('GET', first.key)).json().data.find((row: any) => row.model === 'acme/chat-small').default_provider).toBeNull();
    });

    it('refuses an unknown model, a provider that does not serve it, and missing auth', async () => {
      const unknownModel = await call('PATCH', first.key, { model: 'nobody/nothing', provider: 'sim' });
      expect(unknownModel.statusCode).toBe(400);
      expect(unknownModel.json().error.code).toBe('invalid_request');
      const wrongProvider = await call('PATCH', first.key, { model: 'other/painter', provider: 'sim-anthropic' });
      expect(wrongProvider.statusCode).toBe(400);
      expect(wrongProvider.json().error.message).toContain('sim-anthropic');
      expect((await call('PATCH', first.key, { model: 'acme/chat-small' })).statusCode).toBe(400);
      expect((await call('GET', undefined)).statusCode).toBe(401);
    });
  });
}
