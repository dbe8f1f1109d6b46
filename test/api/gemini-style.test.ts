import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The Gemini style over real HTTP with the simulator upstream: its routes and authentication, the
 * JSON-array stream, Google's error shape for the gateway's refusals, fallbacks, and the request log.
 */
let gateway: SimulatedGateway;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ credits: 100 });
});
afterAll(async () => gateway?.close());

const hello = { contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] };

function post(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': gateway.key }): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

interface GoogleError {
  error: { code: number; message: string; status: string; metadata: Record<string, unknown>; details: Array<{ '@type': string; reason: string; domain: string }> };
}

describe('routes and keys', () => {
  it.each([
    ['x-goog-api-key', (key: string) => ['/v1beta/models/sim/openai-model:generateContent', { 'x-goog-api-key': key }] as const],
    ['?key=', (key: string) => [`/v1beta/models/sim/openai-model:generateContent?key=${key}`, {}] as const],
    ['Authorization', (key: string) => ['/v1beta/models/sim/openai-model:generateContent', { authorization: `Bearer ${key}` }] as const],
    ['/v1 instead of /v1beta', (key: string) => ['/v1/models/sim/openai-model:generateContent', { 'x-goog-api-key': key }] as const],
    ['an escaped model id', (key: string) => ['/v1beta/models/sim%2Fopenai-model:generateContent', { 'x-goog-api-key': key }] as const],
  ])('answers with the key in %s', async (_name, route) => {
    const [path, headers] = route(gateway.key);
    const response = await post(path, hello, { ...headers });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }>; modelVersion: string };
    expect(answer.candidates[0].content.parts[0].text).toMatch(/^Simulated reply from gpt-sim: /);
    expect(answer.modelVersion).toBe('sim/openai-model');
  });

  it('refuses a missing key with 401 UNAUTHENTICATED in Google’s shape, with the envelope’s code as the reason', async () => {
    const response = await post('/v1beta/models/sim/openai-model:generateContent', hello, {});
    expect(response.status).toBe(401);
    const body = (await response.json()) as GoogleError;
    expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(body.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'invalid_api_key', domain: 'switchyard' });
    expect(body.error.metadata.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('takes ?key= on the Gemini style’s routes only', async () => {
    const response = await post(`/v1/chat/completions?key=${gateway.key}`, { model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }] }, {});
    expect(response.status).toBe(401);
  });

  it('answers 404 in Google’s shape for a method the style does not have', async () => {
    const response = await post('/v1beta/models/sim/openai-model:predict', hello);
    expect(response.status).toBe(404);
    expect(((await response.json()) as GoogleError).error.status).toBe('NOT_FOUND');
  });

  it('lists the text models in Gemini’s shape under /v1beta, and leaves /v1/models the catalog', async () => {
    const list = (await (await fetch(`${gateway.url}/v1beta/models?pageSize=2`, { headers: { 'x-goog-api-key': gateway.key } })).json()) as { models: Array<{ name: string }>; nextPageToken?: string };
    expect(list.models.map((model) => model.name)).toEqual(['models/sim/openai-model', 'models/sim/anthropic-model']);
    expect(list.nextPageToken).toBe('sim/anthropic-model');
    const next = (await (await fetch(`${gateway.url}/v1beta/models?pageSize=2&pageToken=${list.nextPageToken}`, { headers: { 'x-goog-api-key': gateway.key } })).json()) as { models: Array<{ name: string }> };
    expect(next.models[0].name).toBe('models/sim/gemini-model');
    const one = (await (await fetch(`${gateway.url}/v1beta/models/sim/gemini-model`, { headers: { 'x-goog-api-key': gateway.key } })).json()) as Record<string, unknown>;
    expect(one).toMatchObject({ name: 'models/sim/gemini-model', inputTokenLimit: 32000, outputTokenLimit: 1000, supportedGenerationMethods: expect.arrayContaining(['generateContent', 'countTokens']) });
    const catalog = (await (await fetch(`${gateway.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(catalog.data.map((model) => model.id)).toContain('sim/openai-model');
  });
});

describe('streams', () => {
  it.each(['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'])('streams %s as one JSON array without alt=sse', async (model) => {
    const response = await post(`/v1beta/models/${model}:streamGenerateContent`, hello);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = JSON.parse(await response.text()) as Array<{ candidates: Array<{ content: { parts: Array<{ text?: string }> }; finishReason?: string }>; usageMetadata?: { cost: number } }>;
    const text = chunks.flatMap((chunk) => chunk.candidates[0].content.parts.map((part) => part.text ?? '')).join('');
    expect(text).toMatch(/^Simulated reply from \S+: Say hello/);
    expect(chunks.at(-1)?.candidates[0].finishReason).toBe('STOP');
    expect(chunks.at(-1)?.usageMetadata?.cost).toBeGreaterThan(0);
  });

  it('reads snake_case fields as Google’s API does', async () => {
    const response = await post('/v1beta/models/sim/anthropic-model:generateContent', {
      contents: hello.contents,
      system_instruction: { parts: [{ text: 'Be brief' }] },
      generation_config: { max_output_tokens: 3 },
    });
    const answer = (await response.json()) as { candidates: Array<{ finishReason: string; content: { parts: Array<{ text: string }> } }> };
    expect(answer.candidates[0].finishReason).toBe('MAX_TOKENS');
    expect(answer.candidates[0].content.parts[0].text.split(' ')).toHaveLength(3);
  });
});

describe('the gateway’s rules, as on the other styles', () => {
  it('falls back to the models listed in models', async () => {
    const response = await post('/v1beta/models/sim/no-such-model:generateContent', { ...hello, models: ['sim/backup'] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { modelVersion: string }).modelVersion).toBe('sim/backup');
  });

  it('leaves out the preferences an endpoint cannot honour, and says so', async () => {
    const response = await post('/v1beta/models/sim/openai-model:generateContent', {
      ...hello,
      tools: [{ googleSearch: {} }],
      generationConfig: { topK: 64, thinkingConfig: { thinkingBudget: 8192, includeThoughts: true } },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-omitted')).toBe('tools[].googleSearch, generationConfig.topK, generationConfig.thinkingConfig');
  });

  it('follows provider preferences', async () => {
    const response = await post('/v1beta/models/sim/everywhere:generateContent', { ...hello, provider: { only: ['sim-gemini'] } });
    expect(response.headers.get('x-switchyard-provider')).toBe('sim-gemini');
  });

  it('refuses mixing free and paid models with 400 INVALID_ARGUMENT', async () => {
    const response = await post('/v1beta/models/sim/free-model:free:generateContent', { ...hello, models: ['sim/openai-model'] });
    expect(response.status).toBe(400);
    const body = (await response.json()) as GoogleError;
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain("'model' and 'models'");
  });

  it('keeps free models to linked accounts (a model id with its own colon)', async () => {
    const response = await post('/v1beta/models/sim/free-model:free:generateContent', hello);
    expect(response.status).toBe(403);
    const body = (await response.json()) as GoogleError;
    expect(body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    expect(body.error.details[0].reason).toBe('messenger_link_required');
  });

  it('records the style and the streaming on the request log', async () => {
    const response = await post('/v1beta/models/sim/openai-model:streamGenerateContent?alt=sse', hello);
    await response.text();
    const id = response.headers.get('x-request-id')!;
    let row: { data: { endpoint: string; streamed: boolean; model: string } } | undefined;
    for (let attempt = 0; attempt < 50 && !row; attempt++) {
      const found = await fetch(`${gateway.url}/v1/requests/${id}`, { headers: { authorization: `Bearer ${gateway.key}` } });
      if (found.status === 200) row = (await found.json()) as typeof row;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(row?.data).toMatchObject({ endpoint: '/models/{model}:streamGenerateContent', streamed: true, model: 'sim/openai-model' });
  });

  it('refuses an account without funds with 402 FAILED_PRECONDITION', async () => {
    const poor = await gateway.test.createAccount({ credits: 0 });
    const response = await post('/v1beta/models/sim/openai-model:generateContent', hello, { 'x-goog-api-key': poor.key });
    expect(response.status).toBe(402);
    const body = (await response.json()) as GoogleError;
    expect(body.error).toMatchObject({ code: 402, status: 'FAILED_PRECONDITION' });
    expect(body.error.details[0].reason).toBe('insufficient_balance');
  });
});
